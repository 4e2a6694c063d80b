// A real `flowhook facade` process with no engine behind it (the engine URL
// points nowhere): enough for what the facade decides alone — how it was
// started, and the refusals it answers before it would call an engine.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../bin/embedded/free-port.ts';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));

/** Runs `use` once the facade listens (with its PID and base URL), then stops it. */
export async function withLoneFacade<T>(
  env: Record<string, string>,
  use: (facade: { pid: number; url: string }) => Promise<T>,
): Promise<T> {
  const port = await findFreePort();
  const child = spawn(process.execPath, [FLOWHOOK, 'facade'], {
    env: {
      PATH: process.env.PATH ?? '',
      FLOWHOOK_FACADE_PORT: String(port),
      FLOWHOOK_FACADE_HOST: '127.0.0.1',
      FLOWHOOK_FACADE_METRICS_PORT: '0',
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
    return await use({ pid: child.pid!, url: `http://127.0.0.1:${port}` });
  } finally {
    child.kill('SIGTERM');
  }
}
