// The stack under measurement: PostgreSQL and Temporal (embedded, or the ones
// FLOWHOOK_DATABASE_URL / TEMPORAL_ADDRESS name), and engine, worker and
// facade as separate processes started through bin/flowhook, so each one's
// CPU and peak memory can be read from /proc — or, with `--all-in-one`
// (BENCH_ALL_IN_ONE=1), the three in one `flowhook start` process, as a new
// user runs them. BENCH_ENGINE_TLS (bench-tls.ts)
// puts the engine's port under TLS or mutual TLS for every client of it.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import protos from '@temporalio/proto';
import { startEmbeddedPostgres } from '../../bin/embedded/embedded-postgres.ts';
import { canConnect, findFreePort } from '../../bin/embedded/free-port.ts';
import { resolveTemporalCli } from '../../bin/embedded/temporal-cli.ts';
import { startTemporalDevServer } from '../../bin/embedded/temporal-dev-server.ts';
import { startTemporalServer } from '../../bin/embedded/temporal-server.ts';
import { resolveTemporalServer, TEMPORAL_SERVER_VERSION } from '../../bin/embedded/temporal-server-install.ts';
import { provisionAccountsBeforeEngine } from '../support/service-accounts.ts';
import type { EngineClientTls } from '../../common/engine-client-tls.ts';
import { adminTlsOf, benchTlsMode, createBenchTls, type BenchTls, type BenchTlsMode } from './bench-tls.ts';
import { SEARCH_ATTRIBUTES } from '../../engine/infrastructure/temporal/search-attributes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FLOWHOOK = join(ROOT, 'bin', 'flowhook');

export interface BenchProcess {
  name: string;
  pid: number;
  /** The process's /metrics endpoints (memory-sampler.ts reads its memory there). */
  metricsUrls: string[];
}

export interface BenchStack {
  facadeUrl: string;
  engineUrl: string;
  temporalAddress: string;
  /** Which Temporal the run measured: the dev server, the real server on PostgreSQL, or TEMPORAL_ADDRESS. */
  temporalKind: string;
  taskQueue: string;
  /** The token the bench's admin client sends: the bootstrap token, or test-admin's under mutual TLS (its certificate's CN). */
  adminToken: string;
  /** The admin client's TLS settings; undefined over h2c. */
  adminTls: EngineClientTls | undefined;
  engineTls: BenchTlsMode;
  /** Engine, worker and facade in one `flowhook start` process. */
  allInOne: boolean;
  processes: BenchProcess[];
  ceilingUrl: string;
  stop(): Promise<void>;
}

const TUNING = [
  'FLOWHOOK_NODE_HEAP',
  'MALLOC_ARENA_MAX',
  'FLOWHOOK_WORKER_CACHED_WORKFLOWS',
  'FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY',
  'FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY',
] as const;

/** `overrides` go to every flowhook process last (a run that measures a setting's default, say). */
export async function startBenchStack(
  env: NodeJS.ProcessEnv,
  log: (m: string) => void,
  overrides: Record<string, string> = {},
): Promise<BenchStack> {
  const stops: (() => Promise<unknown>)[] = [];
  const work = mkdtempSync(join(tmpdir(), 'flowhook-bench-'));
  stops.push(async () => rmSync(work, { recursive: true, force: true }));
  try {
    const tlsMode = benchTlsMode(env.BENCH_ENGINE_TLS);
    let tls: BenchTls | undefined;
    if (tlsMode !== 'off') {
      tls = await createBenchTls(tlsMode);
      stops.push(tls.remove);
      log(`engine port over ${tlsMode === 'mutual' ? 'mutual TLS' : 'TLS'}`);
    }
    let temporalAddress = env.TEMPORAL_ADDRESS;
    const realServer = !temporalAddress && benchTemporal(env) === 'server';
    let databaseUrl = env.FLOWHOOK_DATABASE_URL;
    // The real server keeps its own two databases on the embedded PostgreSQL, next to flowhook's.
    const postgres =
      !databaseUrl || realServer
        ? await startEmbeddedPostgres({ dataDir: work, port: await findFreePort(), log })
        : undefined;
    if (postgres) stops.push(() => postgres.stop());
    if (!databaseUrl) databaseUrl = await postgres!.createDatabase(`bench_${randomBytes(4).toString('hex')}`);
    let temporalKind = temporalAddress ? `TEMPORAL_ADDRESS ${temporalAddress}` : 'dev server';
    if (!temporalAddress) {
      const cliPath = await resolveTemporalCli({
        dataDir: join(ROOT, '.flowhook'),
        log,
        configuredPath: env.TEMPORAL_CLI,
      });
      const temporal = realServer
        ? await startTemporalServer({
            install: await resolveTemporalServer({
              dataDir: join(ROOT, '.flowhook'),
              log,
              home: env.TEMPORAL_SERVER_HOME,
            }),
            cliPath,
            workDir: join(work, 'temporal-server'),
            postgresUrl: postgres!.url,
            createDatabase: (name) => postgres!.createDatabase(name),
            searchAttributes: SEARCH_ATTRIBUTES,
            log,
          })
        : await startTemporalDevServer({
            cliPath,
            inMemory: true,
            headless: true,
            port: await findFreePort(),
            searchAttributes: SEARCH_ATTRIBUTES,
            log,
          });
      stops.push(() => temporal.stop());
      temporalAddress = temporal.address;
      if (realServer) temporalKind = `server ${TEMPORAL_SERVER_VERSION} on PostgreSQL`;
    }
    const allInOne = benchAllInOne(env);
    if (allInOne && tlsMode !== 'off')
      throw new Error('--all-in-one runs the engine hop in one process: BENCH_ENGINE_TLS does not apply');
    const [enginePort, facadePort, engineMetricsPort, workerMetricsPort, facadeMetricsPort] = [
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
    ];
    const taskQueue = `bench-${randomUUID()}`;
    const adminToken = randomBytes(24).toString('base64url');
    // The server certificate names localhost (and 127.0.0.1); the engine listens on 127.0.0.1.
    const engineUrl = tls ? `https://localhost:${enginePort}` : `http://127.0.0.1:${enginePort}`;
    const childEnv: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      FLOWHOOK_DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      FLOWHOOK_TASK_QUEUE: taskQueue,
      FLOWHOOK_ENGINE_PORT: String(enginePort),
      FLOWHOOK_FACADE_PORT: String(facadePort),
      FLOWHOOK_FACADE_HOST: '127.0.0.1',
      // Free ports (the defaults, 7051 to 7053, may be taken), known so memory-sampler.ts can read them.
      FLOWHOOK_ENGINE_METRICS_PORT: String(engineMetricsPort),
      FLOWHOOK_WORKER_METRICS_PORT: String(workerMetricsPort),
      FLOWHOOK_FACADE_METRICS_PORT: String(facadeMetricsPort),
      FLOWHOOK_ENGINE_URL: engineUrl,
      FLOWHOOK_ADMIN_TOKEN: adminToken,
      FLOWHOOK_LOG_LEVEL: 'warn',
      // Scenario F's Stripe signing secret lives in the secret store.
      FLOWHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
      // Scenario F measures the route limit's check, not its refusals (the default, 100/s, is below what a cell sends).
      FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE: '1000000',
      ...(env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: env.BENCH_NODE_OPTIONS } : {}),
      // The worker's tuning knobs, passed on so a run can compare settings (docs/explanation/performance.md).
      ...Object.fromEntries(TUNING.filter((name) => env[name]).map((name) => [name, env[name]!])),
      ...overrides,
    };
    // Migrated and provisioned before the engine starts, as an operator would with flowhook service-account create.
    const tokens = await provisionAccountsBeforeEngine(databaseUrl);
    const ownEnv: Record<string, Record<string, string>> = {
      engine: { ...tls?.engine },
      worker: { ...tls?.worker, FLOWHOOK_ENGINE_TOKEN: tokens.worker },
      facade: { ...tls?.facade, FLOWHOOK_ENGINE_TOKEN: tokens.facade },
    };
    const children: ChildProcess[] = [];
    const launch = (name: string, args: string[]) => {
      const env = { ...childEnv, ...ownEnv[name] };
      // Only the ceiling's stdout is read (it prints its port); flowhook's logs go to the bench's
      // stderr, where an error is seen, rather than into a pipe nobody drains.
      const stdout = name === 'koa-ceiling' ? 'pipe' : 2;
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', stdout, 'inherit'] });
      children.push(child);
      stops.push(() => stopChild(child));
      return { name, child };
    };
    const metrics = (port: number) => `http://127.0.0.1:${port}/metrics`;
    const flowhook: { name: string; child: ChildProcess; metricsUrls: string[] }[] = [];
    if (allInOne) {
      // Its own data directory (local tokens and keys); PostgreSQL and Temporal are the bench's, as above.
      ownEnv.start = { FLOWHOOK_DATA_DIR: join(work, 'start') };
      flowhook.push({
        ...launch('start', [FLOWHOOK, 'start']),
        metricsUrls: [metrics(engineMetricsPort), metrics(workerMetricsPort), metrics(facadeMetricsPort)],
      });
      await waitForPort(facadePort);
    } else {
      flowhook.push({ ...launch('engine', [FLOWHOOK, 'engine']), metricsUrls: [metrics(engineMetricsPort)] });
      await waitForPort(enginePort);
      flowhook.push({ ...launch('worker', [FLOWHOOK, 'worker']), metricsUrls: [metrics(workerMetricsPort)] });
      flowhook.push({ ...launch('facade', [FLOWHOOK, 'facade']), metricsUrls: [metrics(facadeMetricsPort)] });
      await waitForPort(facadePort);
    }
    await waitForWorker(temporalAddress, taskQueue);
    const ceiling = launch('koa-ceiling', [join(ROOT, 'test', 'bench', 'koa-ceiling.ts')]);
    const ceilingPort = await new Promise<string>((resolve) =>
      ceiling.child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
    );
    return {
      facadeUrl: `http://127.0.0.1:${facadePort}`,
      engineUrl,
      temporalAddress,
      temporalKind,
      taskQueue,
      // Under mutual TLS the certificate names test-admin, and a token sent with it must be that account's.
      adminToken: tlsMode === 'mutual' ? tokens.admin : adminToken,
      adminTls: adminTlsOf(tls, engineUrl),
      engineTls: tlsMode,
      allInOne,
      processes: flowhook.map(({ name, child, metricsUrls }) => ({ name, pid: child.pid!, metricsUrls })),
      ceilingUrl: `http://127.0.0.1:${ceilingPort}`,
      async stop() {
        for (const stop of stops.reverse()) await stop().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw error;
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (await canConnect('127.0.0.1', port)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`port ${port} did not open`);
}

/**
 * Until the worker polls its task queue. It bundles the workflow code first,
 * seconds of CPU on a two-core machine: measured before that, the first cell
 * (Instant returns without the worker) would compete with the bundling.
 */
async function waitForWorker(address: string, taskQueue: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const { pollers } = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue },
        taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      if (pollers.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`no worker polled task queue ${taskQueue} within 120 s`);
  } finally {
    await connection.close();
  }
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Peak resident set size (VmHWM) in MiB. */
export function peakRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Math.round(Number(line?.match(/(\d+)/)?.[1] ?? 0) / 1024);
}

/** `--all-in-one` on the command line or BENCH_ALL_IN_ONE=1: `flowhook start` instead of three processes. */
function benchAllInOne(env: NodeJS.ProcessEnv): boolean {
  return process.argv.includes('--all-in-one') || env.BENCH_ALL_IN_ONE === '1';
}

/** `--temporal server` on the command line or FLOWHOOK_TEMPORAL=server: the official server on PostgreSQL instead of the dev server. */
function benchTemporal(env: NodeJS.ProcessEnv): 'dev' | 'server' {
  const flag = process.argv.indexOf('--temporal');
  const mode = flag >= 0 ? process.argv[flag + 1] : (env.FLOWHOOK_TEMPORAL ?? 'dev');
  if (mode !== 'dev' && mode !== 'server')
    throw new Error(`--temporal / FLOWHOOK_TEMPORAL must be dev or server, not ${JSON.stringify(mode)}`);
  return mode;
}
