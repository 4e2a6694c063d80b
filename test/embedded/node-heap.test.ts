// bin/flowhook starts the long-running processes with bounded V8 heaps by
// replacing itself once (process.execve: same PID) — unless the operator says
// FLOWHOOK_NODE_HEAP=off or brings heap flags of their own. Checked on a real
// facade process through the command line the kernel reports for its PID.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));

/** Starts a facade (it needs no engine to listen), returns its command line once it listens, stops it. */
async function facadeCommandLine(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [FLOWHOOK, 'facade'], {
    env: {
      PATH: process.env.PATH ?? '',
      FLOWHOOK_FACADE_PORT: '0',
      FLOWHOOK_FACADE_HOST: '127.0.0.1',
      FLOWHOOK_ENGINE_URL: 'http://127.0.0.1:1',
      FLOWHOOK_ENGINE_TOKEN: 'fhsa_not-a-real-token-for-this-test',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the facade did not start: ${output}`)), 30_000);
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('facade listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.on('exit', (code) => reject(new Error(`the facade exited (${code}): ${output}`)));
    });
    return readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').join(' ');
  } finally {
    child.kill('SIGTERM');
  }
}

test('by default the facade runs with flowhook\'s heap limits, under the same PID', async (t) => {
  const commandLine = await facadeCommandLine({});
  t.regex(commandLine, /--max-old-space-size=160 --max-semi-space-size=8 \S*bin\/flowhook facade/);
});

test('FLOWHOOK_NODE_HEAP=off leaves Node\'s own heap sizing', async (t) => {
  t.notRegex(await facadeCommandLine({ FLOWHOOK_NODE_HEAP: 'off' }), /--max-(old|semi)-space-size/);
});

test('heap flags of the operator\'s own in NODE_OPTIONS win', async (t) => {
  t.notRegex(await facadeCommandLine({ NODE_OPTIONS: '--max-old-space-size=512' }), /--max-(old|semi)-space-size/);
});
