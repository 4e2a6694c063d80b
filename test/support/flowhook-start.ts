// `bin/flowhook start` as a user runs it, for the tests that need the whole
// all-in-one process (start-command, temporal-ui-browser): spawn it, wait for
// its banner, and stop it with Ctrl-C (SIGINT) as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { createTestDatabase, testInfrastructure } from './stack.ts';

export const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));

/**
 * The environment for a `start` with its own Temporal dev server and Web UI on the run's
 * PostgreSQL (embedded PostgreSQL has its own test): every port free, so test files running in
 * parallel never meet, and nothing inherited that would change what start does.
 */
export async function startEnvironment(dataDir: string, extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FLOWHOOK_DATA_DIR: dataDir,
    FLOWHOOK_DATABASE_URL: await createTestDatabase(),
    TEMPORAL_CLI: testInfrastructure().temporalCli,
    ...(await startPorts()),
  };
  for (const name of [
    'TEMPORAL_ADDRESS',
    'FLOWHOOK_ADMIN_TOKEN',
    'FLOWHOOK_LOG_LEVEL',
    'FLOWHOOK_FACADE_HOST',
    'FLOWHOOK_CODEC_ALLOWED_ORIGINS',
  ])
    delete env[name];
  return { ...env, ...extra };
}

/** A free port for everything `start` listens on (metrics: any), so test files running in parallel never meet. */
export async function startPorts(): Promise<Record<string, string>> {
  const port = async () => String(await findFreePort());
  return {
    FLOWHOOK_FACADE_PORT: await port(),
    FLOWHOOK_ENGINE_PORT: await port(),
    FLOWHOOK_TEMPORAL_PORT: await port(),
    FLOWHOOK_TEMPORAL_UI_PORT: await port(),
    FLOWHOOK_CODEC_PORT: await port(),
    FLOWHOOK_CONSOLE_PORT: await port(),
    FLOWHOOK_ENGINE_METRICS_PORT: '0',
    FLOWHOOK_WORKER_METRICS_PORT: '0',
    FLOWHOOK_FACADE_METRICS_PORT: '0',
  };
}

export interface StartedFlowhook {
  child: ChildProcess;
  banner: string;
  output: () => string;
}

/** `cwd`: where start runs (its default data directory is `.flowhook` there). */
export async function startFlowhook(env: NodeJS.ProcessEnv, json = false, cwd?: string): Promise<StartedFlowhook> {
  const child = spawn(process.execPath, [FLOWHOOK, 'start', ...(json ? ['--json'] : [])], {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = json ? '"status":"running"' : 'Press Ctrl-C to stop.';
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 90 s:\n${stdout}\n${stderr}`)), 90_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes(ready) && (!json || stdout.endsWith('\n'))) {
        clearTimeout(timer);
        resolve(stdout);
      }
    });
    child.once('exit', (code) => reject(new Error(`start exited with ${code}:\n${stdout}\n${stderr}`)));
  }).catch((error: unknown) => {
    // No banner: the process must not outlive the test that started it. Ctrl-C lets it stop
    // what it started (Temporal, PostgreSQL); SIGKILL if that does not end it.
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), 15_000).unref();
    }
    throw error;
  });
  return { child, banner, output: () => stdout + stderr };
}

/** Ctrl-C, then waits for the exit; resolves with the exit code. */
export async function stopFlowhook(started: StartedFlowhook): Promise<number | null> {
  if (started.child.exitCode !== null || started.child.signalCode !== null) return started.child.exitCode;
  started.child.kill('SIGINT');
  const [code] = await once(started.child, 'exit');
  return code as number | null;
}
