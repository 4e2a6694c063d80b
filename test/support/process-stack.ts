// The stack as separate processes started through bin/flowhook, the way an
// operator runs it at scale; their stdout and stderr are captured for tests
// that inspect what the processes print.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import protos from '@temporalio/proto';
import { canConnect, findFreePort } from '../../bin/embedded/free-port.ts';
import { eventually } from './eventually.ts';
import { createTestDatabase, testInfrastructure } from './stack.ts';
import { provisionAccountsBeforeEngine, type StackTokens } from './service-accounts.ts';
import { createAdminClient, type AdminClient } from '../../bin/cli/admin-client.ts';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));

export interface ProcessStack {
  facadeUrl: string;
  engineUrl: string;
  env: Record<string, string>;
  tokens: StackTokens;
  /** Everything the processes printed so far. */
  output(): string;
  /** SIGTERM to every process; resolves with their exit codes. */
  stop(): Promise<(number | null)[]>;
  /** kill -9 one component, as a crash would. */
  crash(name: 'engine' | 'worker' | 'facade'): Promise<void>;
  /** SIGTERM to one component; resolves with its exit code. */
  terminate(name: 'engine' | 'worker' | 'facade'): Promise<number | null>;
  /** Starts another process of that component. */
  launch(name: 'engine' | 'worker' | 'facade'): void;
  /** The process id of the component's latest process. */
  pid(name: 'engine' | 'worker' | 'facade'): number;
  /** How the component's latest process ended; undefined while it runs. */
  exit(name: 'engine' | 'worker' | 'facade'): { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

export async function startProcessStack(
  options: {
    env?: Record<string, string>;
    componentEnv?: Partial<Record<'engine' | 'worker' | 'facade', Record<string, string>>>;
  } = {},
): Promise<ProcessStack> {
  const { temporalAddress } = testInfrastructure();
  const [enginePort, facadePort] = [await findFreePort(), await findFreePort()];
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    FLOWHOOK_DATABASE_URL: await createTestDatabase(),
    TEMPORAL_ADDRESS: temporalAddress,
    FLOWHOOK_TASK_QUEUE: `test-${randomUUID()}`,
    FLOWHOOK_ENGINE_PORT: String(enginePort),
    FLOWHOOK_FACADE_PORT: String(facadePort),
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
    // Free ports: several stacks run at once, and the defaults (7051, 7052, 7053) may be taken.
    FLOWHOOK_ENGINE_METRICS_PORT: '0',
    FLOWHOOK_WORKER_METRICS_PORT: '0',
    FLOWHOOK_FACADE_METRICS_PORT: '0',
    FLOWHOOK_ENGINE_URL: `http://127.0.0.1:${enginePort}`,
    FLOWHOOK_ADMIN_TOKEN: randomBytes(24).toString('base64url'),
    FLOWHOOK_PAYLOAD_KEY: randomBytes(32).toString('base64'),
    FLOWHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    // The tests' target servers listen on loopback; production opens nothing by default.
    FLOWHOOK_EGRESS_ALLOW: '127.0.0.1',
    FLOWHOOK_LOG_LEVEL: 'debug',
    ...options.env,
  };
  const tokens = await provisionAccountsBeforeEngine(env.FLOWHOOK_DATABASE_URL!);
  const tokenOf: Record<string, string> = { worker: tokens.worker, facade: tokens.facade };
  let output = '';
  const children: ChildProcess[] = [];
  const byName = new Map<string, ChildProcess>();
  const launch = (command: string) => {
    const own = options.componentEnv?.[command as 'engine' | 'worker' | 'facade'];
    const childEnv = { ...env, ...own, ...(tokenOf[command] && { FLOWHOOK_ENGINE_TOKEN: tokenOf[command] }) };
    const child = spawn(process.execPath, [FLOWHOOK, command], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    children.push(child);
    byName.set(command, child);
    return child;
  };
  const stopAll = () =>
    Promise.all(
      children.map(
        (child) =>
          new Promise<number | null>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
            child.once('exit', (code) => resolve(code));
            child.kill('SIGTERM');
          }),
      ),
    );
  try {
    launch('engine');
    await waitForPort(enginePort, () => output);
    launch('worker');
    launch('facade');
    await waitForPort(facadePort, () => output);
    // The worker bundles its workflow code before it polls (seconds on a busy machine): a test's
    // first sync call must not race that, or it measures start-up instead of what it tests.
    await waitForPoller(temporalAddress, env.FLOWHOOK_TASK_QUEUE!, () => output);
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    facadeUrl: `http://127.0.0.1:${facadePort}`,
    engineUrl: `http://127.0.0.1:${enginePort}`,
    env,
    tokens,
    output: () => output,
    stop: stopAll,
    crash: (name) =>
      new Promise<void>((resolve) => {
        const child = byName.get(name)!;
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    launch: (name) => void launch(name),
    pid: (name) => byName.get(name)!.pid!,
    exit: (name) => {
      const child = byName.get(name)!;
      return child.exitCode === null && child.signalCode === null
        ? undefined
        : { code: child.exitCode, signal: child.signalCode };
    },
    terminate: (name) =>
      new Promise<number | null>((resolve) => {
        const child = byName.get(name)!;
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** The engine speaks HTTP/2 only, so readiness is a TCP connect, not an HTTP request. */
async function waitForPort(port: number, output: () => string, timeoutMs = 60_000): Promise<void> {
  await eventually(() => canConnect('127.0.0.1', port), {
    timeoutMs,
    intervalMs: 200,
    what: `port ${port} open`,
    show: () => `it closed; output so far:\n${output()}`,
  });
}

/** Until a worker polls the stack's workflow task queue. */
async function waitForPoller(address: string, taskQueue: string, output: () => string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const pollers = async () =>
      (
        await connection.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: taskQueue },
          taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        })
      ).pollers.length;
    await eventually(pollers, {
      timeoutMs: 120_000,
      intervalMs: 250,
      what: `a worker polling ${taskQueue}`,
      show: () => `no poller; output so far:\n${output()}`,
    });
  } finally {
    await connection.close();
  }
}

/** A company with a service user on the stack, made through its admin API: the admin client and the user's Basic header. */
export async function stackTenant(
  stack: ProcessStack,
  company: string,
  userName: string,
): Promise<{ admin: AdminClient; auth: string }> {
  const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
  await admin.createCompany({ name: company });
  const { accessKey } = await admin.createUser({ name: userName, company });
  return { admin, auth: `Basic ${Buffer.from(`${userName}:${accessKey}`).toString('base64')}` };
}
