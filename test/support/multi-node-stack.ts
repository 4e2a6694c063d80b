// Two of every process — engine, worker, facade — started through
// bin/flowhook on one database, the run's Temporal and one task queue, the way
// a deployment scales out. A facade and a worker name one engine
// (FLOWHOOK_ENGINE_URL), so the processes form two nodes: node a's facade and
// worker talk to engine a, node b's to engine b. process-stack.ts runs one
// process per component; here each process is named by component and node
// ('engine-a'), so one of two can be killed and started again.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { canConnect, findFreePort } from '../../bin/embedded/free-port.ts';
import { eventually } from './eventually.ts';
import { createTestDatabase, testInfrastructure } from './stack.ts';
import { provisionAccountsBeforeEngine, type StackTokens } from './service-accounts.ts';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));

export type NodeName = 'a' | 'b';
export type Component = 'engine' | 'worker' | 'facade';
export type ProcessName = `${Component}-${NodeName}`;

export interface StackNode {
  facadeUrl: string;
  engineUrl: string;
}

export interface MultiNodeStack {
  nodes: Record<NodeName, StackNode>;
  /** What every process shares: database, Temporal, task queue, admin token, payload and secrets keys. */
  env: Record<string, string>;
  tokens: StackTokens;
  /** Everything the processes printed so far, each line prefixed with its process's name. */
  output(): string;
  /** kill -9 of one process, as a crash would. */
  crash(name: ProcessName): Promise<void>;
  /** Starts the process again; resolves once it is ready (see `ready` below). */
  launch(name: ProcessName): Promise<void>;
  /** SIGTERM to every process still running (SIGKILL to one that does not exit in time). */
  stop(): Promise<void>;
}

export async function startMultiNodeStack(): Promise<MultiNodeStack> {
  const { temporalAddress } = testInfrastructure();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    FLOWHOOK_DATABASE_URL: await createTestDatabase(),
    TEMPORAL_ADDRESS: temporalAddress,
    FLOWHOOK_TASK_QUEUE: `test-${randomUUID()}`,
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
    // Free ports: two processes of a kind run side by side here (each worker gets its own, below).
    FLOWHOOK_ENGINE_METRICS_PORT: '0',
    FLOWHOOK_FACADE_METRICS_PORT: '0',
    // Keys from the environment must be equal in every process; the engines' HMAC keys
    // (engine/domain/callers/deployment-keys.ts) live in the shared database and agree by themselves.
    FLOWHOOK_ADMIN_TOKEN: randomBytes(24).toString('base64url'),
    FLOWHOOK_PAYLOAD_KEY: randomBytes(32).toString('base64'),
    FLOWHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    // The tests' target servers listen on loopback; production opens nothing by default.
    FLOWHOOK_EGRESS_ALLOW: '127.0.0.1',
    // Per-call lines are info: enough to read a failure, less than debug from six processes.
    FLOWHOOK_LOG_LEVEL: 'info',
  };
  // Migrated and provisioned once, before either engine starts; both facades share one
  // service account, both workers another (the accounts are per role, not per process).
  const tokens = await provisionAccountsBeforeEngine(env.FLOWHOOK_DATABASE_URL!);
  const ports: Record<NodeName, { engine: number; facade: number; workerMetrics: number }> = {
    a: { engine: await findFreePort(), facade: await findFreePort(), workerMetrics: await findFreePort() },
    b: { engine: await findFreePort(), facade: await findFreePort(), workerMetrics: await findFreePort() },
  };
  let output = '';
  const running = new Map<ProcessName, ChildProcess>();
  const all: ChildProcess[] = [];

  const envOf = (name: ProcessName): Record<string, string> => {
    const [component, node] = name.split('-') as [Component, NodeName];
    const own = {
      ...env,
      FLOWHOOK_ENGINE_PORT: String(ports[node].engine),
      FLOWHOOK_FACADE_PORT: String(ports[node].facade),
      FLOWHOOK_ENGINE_URL: `http://127.0.0.1:${ports[node].engine}`,
    };
    if (component === 'engine') return own;
    if (component === 'facade') return { ...own, FLOWHOOK_ENGINE_TOKEN: tokens.facade };
    return {
      ...own,
      FLOWHOOK_ENGINE_TOKEN: tokens.worker,
      FLOWHOOK_WORKER_METRICS_PORT: String(ports[node].workerMetrics),
    };
  };
  // Ready: an engine or a facade once its port accepts connections (the engine speaks HTTP/2
  // only, so a TCP connect); a worker once its /readyz says it polls the task queue — bundling
  // the workflow code takes seconds, and a worker not yet polling takes no part in a test.
  const ready = (name: ProcessName): (() => Promise<boolean>) => {
    const [component, node] = name.split('-') as [Component, NodeName];
    if (component !== 'worker') return () => canConnect('127.0.0.1', ports[node][component]);
    return () =>
      fetch(`http://127.0.0.1:${ports[node].workerMetrics}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
        (response) => response.ok,
        () => false,
      );
  };
  const launch = async (name: ProcessName): Promise<void> => {
    const [component] = name.split('-') as [Component];
    const child = spawn(process.execPath, [FLOWHOOK, component], {
      env: envOf(name),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout!, child.stderr!])
      stream.on(
        'data',
        linesOf(name, (line) => (output += line)),
      );
    running.set(name, child);
    all.push(child);
    await waitUntilReady(name, ready(name), child, () => output);
  };
  const stop = async () => {
    await Promise.all(all.map((child) => stopProcess(child)));
  };

  try {
    // One engine after the other: each registers Temporal search attributes it finds missing
    // at start, and two doing that at once on a real server could trip over each other.
    await launch('engine-a');
    await launch('engine-b');
    await Promise.all((['worker-a', 'worker-b', 'facade-a', 'facade-b'] as const).map(launch));
  } catch (error) {
    await stop();
    throw error;
  }
  const nodeOf = (node: NodeName): StackNode => ({
    facadeUrl: `http://127.0.0.1:${ports[node].facade}`,
    engineUrl: `http://127.0.0.1:${ports[node].engine}`,
  });
  return {
    nodes: { a: nodeOf('a'), b: nodeOf('b') },
    env,
    tokens,
    output: () => output,
    crash: (name) =>
      new Promise<void>((resolve) => {
        const child = running.get(name)!;
        if (exited(child)) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    launch,
    stop,
  };
}

/** A data handler that hands on whole lines prefixed with the process's name (a chunk may end mid-line). */
function linesOf(name: ProcessName, append: (line: string) => void): (chunk: Buffer) => void {
  let pending = '';
  return (chunk) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) append(`[${name}] ${line}\n`);
  };
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM, and SIGKILL after 20 s: a stuck drain must not hold up the test's teardown. */
function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (exited(child)) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Polls `isReady`; a process that exits first fails at once. */
async function waitUntilReady(
  name: ProcessName,
  isReady: () => Promise<boolean>,
  child: ChildProcess,
  output: () => string,
  timeoutMs = 90_000,
): Promise<void> {
  const readyOrExited = async () => {
    if (exited(child))
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output()}`);
    return isReady();
  };
  await eventually(readyOrExited, {
    timeoutMs,
    intervalMs: 200,
    what: `${name} ready`,
    show: () => `not ready; output so far:\n${output()}`,
  });
}
