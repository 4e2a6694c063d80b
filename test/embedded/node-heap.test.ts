// bin/flowhook starts the long-running processes with bounded V8 heaps and two
// malloc arenas by replacing itself once (process.execve: same PID) — unless
// the operator says FLOWHOOK_NODE_HEAP=off or brings settings of their own.
// Checked on a real facade process through the command line and environment
// the kernel reports for its PID.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));

/** Starts a facade (it needs no engine to listen), returns its command line and environment once it listens, stops it. */
async function facadeProcess(env: Record<string, string>): Promise<{ commandLine: string; environment: string[] }> {
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
    const read = (file: string) => readFileSync(`/proc/${child.pid}/${file}`, 'utf8').split('\0');
    return { commandLine: read('cmdline').join(' '), environment: read('environ') };
  } finally {
    child.kill('SIGTERM');
  }
}

test('by default the facade runs with flowhook\'s heap limits and two malloc arenas, under the same PID', async (t) => {
  const { commandLine, environment } = await facadeProcess({});
  t.regex(commandLine, /--max-old-space-size=160 --max-semi-space-size=8 \S*bin\/flowhook facade/);
  t.true(environment.includes('MALLOC_ARENA_MAX=2'));
});

test('FLOWHOOK_NODE_HEAP=off leaves Node\'s own heap sizing and malloc\'s arenas', async (t) => {
  const { commandLine, environment } = await facadeProcess({ FLOWHOOK_NODE_HEAP: 'off' });
  t.notRegex(commandLine, /--max-(old|semi)-space-size/);
  t.false(environment.some((variable) => variable.startsWith('MALLOC_ARENA_MAX=')));
});

test('heap flags of the operator\'s own in NODE_OPTIONS win; the arenas are still limited', async (t) => {
  const { commandLine, environment } = await facadeProcess({ NODE_OPTIONS: '--max-old-space-size=512' });
  t.notRegex(commandLine, /--max-(old|semi)-space-size/);
  t.true(environment.includes('MALLOC_ARENA_MAX=2'));
});

test('the operator\'s own MALLOC_ARENA_MAX wins', async (t) => {
  const { commandLine, environment } = await facadeProcess({ MALLOC_ARENA_MAX: '4' });
  t.regex(commandLine, /--max-old-space-size=160/);
  t.true(environment.includes('MALLOC_ARENA_MAX=4'));
  t.false(environment.includes('MALLOC_ARENA_MAX=2'));
});
