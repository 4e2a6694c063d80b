// The Temporal dev server (`temporal server start-dev`) for `flowhook start`
// and the test run: persistent SQLite storage (or in memory for tests), our
// search attributes registered at launch, ready only when it answers as a
// client would ask it, and stopped without leaving a process behind.
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertPortFree, canConnect } from './free-port.ts';
import { logUnexpectedExit, readyOrStopped, spawnServer, type ServerProcess } from './server-process.ts';
import { childEnvironment } from './child-environment.ts';
import { probeDevServer } from './temporal-probe.ts';
import { endLeftoverServer, forgetServerPid, recordServerPid } from './temporal-orphan.ts';

export type SearchAttributeType = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/** Where workflow state lives: <dataDir>/temporal.db, an explicit file, or nowhere. */
export type DevServerStorage =
  | { dataDir: string; dbFile?: undefined; inMemory?: undefined }
  | { dbFile: string; dataDir?: undefined; inMemory?: undefined }
  | { inMemory: true; dataDir?: undefined; dbFile?: undefined };

export type TemporalDevServerOptions = DevServerStorage & {
  cliPath: string;
  /** Interface for gRPC and UI; loopback by default. */
  ip?: string;
  /** gRPC port (7233). The CLI cannot use port 0: use findFreePort() for tests. */
  port?: number;
  /** Web UI port; defaults to port + 1000 (8233), as the CLI does. Ignored when headless. */
  uiPort?: number;
  headless?: boolean;
  /** The Web UI's remote codec endpoint (`--ui-codec-endpoint`): the engine's codec server. Ignored when headless. */
  codecEndpoint?: string;
  /** Created at launch unless it is "default" (always there). */
  namespace?: string;
  searchAttributes?: Record<string, SearchAttributeType>;
  /** Receives error-level server logs only. */
  log: (message: string) => void;
  startupTimeoutMs?: number;
};

export type TemporalDevServer = {
  /** host:port for TEMPORAL_ADDRESS / Connection.connect. */
  address: string;
  uiUrl?: string;
  pid: number;
  /** SIGTERM, SIGKILL after a grace period; idempotent. */
  stop(): Promise<void>;
};

const ERROR_LEVELS = new Set(['error', 'dpanic', 'panic', 'fatal']);

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? 7233;
  const uiPort = options.headless ? undefined : (options.uiPort ?? port + 1000);
  const namespace = options.namespace ?? 'default';
  const attributes = Object.entries(options.searchAttributes ?? {});
  for (const [name] of attributes) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`search attribute name "${name}" is not an identifier`);
  }
  const dbFile = options.inMemory ? undefined : resolve(options.dbFile ?? join(options.dataDir, 'temporal.db'));
  const host = connectableHost(ip);
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;

  if (dbFile) {
    mkdirSync(dirname(dbFile), { recursive: true, mode: 0o700 });
    await endLeftoverServer(dbFile, options.log);
  }
  await assertPortFree(ip, port, 'Temporal dev server (gRPC)');
  if (uiPort !== undefined) await assertPortFree(ip, uiPort, 'Temporal dev server (Web UI)');

  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    ...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]),
    ...(uiPort !== undefined && options.codecEndpoint ? ['--ui-codec-endpoint', options.codecEndpoint] : []),
    // WAL as in the SDK's own CI: readers do not block the writer.
    ...(dbFile ? ['--db-filename', dbFile, '--sqlite-pragma', 'journal_mode=WAL'] : []),
    ...(namespace === 'default' ? [] : ['--namespace', namespace]),
    ...attributes.flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
    // Task dispatch fair between fairness keys (the engine sets one per company), not first come
    // first served: one company's backlog does not hold up another's executions. Fairness holds
    // within a task queue partition, so new tasks go to one (on a one-process server partitions
    // buy no throughput); with the default four a quiet company's task could wait in a partition
    // no poller was on (test/e2e/fairness.test.ts: done after 50-70 of a 150-execution flood
    // instead of ~12). Reads stay on all four, so tasks an earlier run left in the others still run.
    '--dynamic-config-value',
    'matching.enableFairness=true',
    '--dynamic-config-value',
    'matching.numTaskqueueWritePartitions=1',
    // History's transfer queue (what turns a start, a signal or a completed task into the next
    // workflow task) is read at most 20 times a second per shard by default, and the dev server has
    // one shard: every hop between workflows waited up to 50 ms for it (a sync call's first task,
    // each hand-over of a concurrency key: 5 a second). The cap guards a shared cluster's database;
    // here it only adds latency.
    '--dynamic-config-value',
    `history.transferProcessorMaxPollRPS=${TRANSFER_QUEUE_READS_PER_SECOND}`,
    '--log-level',
    'warn',
    '--log-format',
    'json',
  ];
  // The CLI picks free ports of its own for the dev server's inner services (history, matching, …);
  // another process can take one before the CLI binds it. Then it dies at startup, and trying again
  // picks others. A port given here (gRPC, Web UI) that someone took is reported, not retried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, args, {
        host,
        port,
        uiPort,
        address,
        namespace,
        dbFile,
        attributes: attributes.map(([name]) => name),
      });
    } catch (error) {
      const taken = error instanceof DevServerStartError ? error.takenPort : undefined;
      if (attempt >= INNER_PORT_ATTEMPTS || taken === undefined || taken === port || taken === uiPort) throw error;
      options.log(
        `the Temporal dev server's own port ${taken} was taken meanwhile; starting it again (try ${attempt + 1} of ${INNER_PORT_ATTEMPTS})`,
      );
    }
  }
}

/** Reads of history's transfer queue per second (Temporal's default: 20 per shard). */
export const TRANSFER_QUEUE_READS_PER_SECOND = 1000;

/** How often a start that lost one of the CLI's own ports to another process is tried. */
const INNER_PORT_ATTEMPTS = 3;

/** A port the CLI could not bind, as its log says it ("listen tcp 127.0.0.1:45505: bind: address already in use"). */
const PORT_TAKEN = /listen tcp \S*:(\d+): bind: address already in use/;

/** A start that failed; `takenPort` when the CLI said a port was taken (its log line, which a crash's trace can push out of the tail). */
class DevServerStartError extends Error {
  readonly takenPort: number | undefined;
  constructor(message: string, takenPort: number | undefined) {
    super(message);
    this.takenPort = takenPort;
  }
}

interface StartPlan {
  host: string;
  port: number;
  uiPort: number | undefined;
  address: string;
  namespace: string;
  dbFile: string | undefined;
  attributes: string[];
}

async function startOnce(
  options: TemporalDevServerOptions,
  args: string[],
  plan: StartPlan,
): Promise<TemporalDevServer> {
  const { host, port, uiPort, address, namespace, dbFile } = plan;
  let takenPort: number | undefined;
  const server = await spawnServer({
    name: 'Temporal dev server',
    command: options.cliPath,
    args,
    env: childEnvironment(),
    stopSteps: [
      { signal: 'SIGTERM', waitMs: 10_000, wholeGroup: true },
      { signal: 'SIGKILL', waitMs: 5_000, wholeGroup: true },
    ],
    onStderrLine: (line) => {
      const taken = PORT_TAKEN.exec(line);
      if (taken) takenPort = Number(taken[1]);
      forwardErrors(line, options.log);
    },
  });
  if (dbFile) {
    recordServerPid(dbFile, server.pid);
    void server.exited.then(() => forgetServerPid(dbFile, server.pid));
  }

  try {
    await readyOrStopped(server, () =>
      waitUntilReady(
        server,
        options.cliPath,
        host,
        port,
        address,
        namespace,
        plan.attributes,
        options.startupTimeoutMs ?? 60_000,
      ),
    );
  } catch (error) {
    throw new DevServerStartError(error instanceof Error ? error.message : String(error), takenPort);
  }
  if (dbFile) makeOwnerOnly([dbFile, `${dbFile}-wal`, `${dbFile}-shm`]);
  logUnexpectedExit(server, 'the Temporal dev server', options.log);
  return {
    address,
    uiUrl: uiPort === undefined ? undefined : `http://${host.includes(':') ? `[${host}]` : host}:${uiPort}`,
    pid: server.pid,
    stop: () => server.stop(),
  };
}

async function waitUntilReady(
  server: ServerProcess,
  cliPath: string,
  host: string,
  port: number,
  address: string,
  namespace: string,
  attributes: string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let why = 'the gRPC port never opened';
  for (;;) {
    // Checked after every await: a probe must never be answered by someone else's server.
    if (server.hasExited())
      throw new Error(
        `the Temporal dev server ended during startup (${server.exitStatus()}). Its last output:\n${server.tail.text()}`,
      );
    if (await canConnect(host, port)) {
      const probe = await probeDevServer(cliPath, address, namespace, attributes);
      if (server.hasExited()) continue;
      if (probe.ready) return;
      why = probe.why;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `the Temporal dev server on ${address} was not ready within ${timeoutMs / 1000}s (${why}). Its last output:\n${server.tail.text()}`,
      );
    }
    await sleep(100);
  }
}

/**
 * The server creates its SQLite files with the umask's mode (often 0644), and
 * they hold every workflow's inputs and results: owner only. SQLite gives a
 * WAL or shared-memory file it creates later the database file's mode.
 */
function makeOwnerOnly(files: string[]): void {
  for (const file of files) {
    try {
      chmodSync(file, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** With --log-format json every line is an object with a level; show only errors. */
export function forwardErrors(line: string, log: (message: string) => void): void {
  let entry: { level?: unknown; msg?: unknown; error?: unknown } | undefined;
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    // Not a log record: the CLI's own "Error: …" on a failed start.
    if (/\b(error|fatal|panic)\b/i.test(line)) log(`temporal: ${line}`);
    return;
  }
  if (ERROR_LEVELS.has(String(entry?.level).toLowerCase()) && !isTransientShardError(entry)) {
    log(`temporal: ${String(entry?.msg)}${entry?.error ? `: ${String(entry.error)}` : ''}`);
  }
}

/**
 * The server logs at error level while a history shard changes hands (acquired at start, released
 * at stop) and retries on its own: a queue reader that polls a shard whose ownership is not
 * settled yet reports "shard status unknown". Seen once in ~50 CI runs of the embedded test; not
 * something an operator can act on, so it is not forwarded.
 */
function isTransientShardError(entry: { msg?: unknown; error?: unknown } | undefined): boolean {
  return String(entry?.error ?? '').toLowerCase() === 'shard status unknown';
}

/** Where a client connects when the server binds a wildcard address. */
function connectableHost(ip: string): string {
  if (ip === '0.0.0.0' || ip === '') return '127.0.0.1';
  if (ip === '::' || ip === '[::]') return '::1';
  return ip.replace(/^\[(.*)\]$/, '$1');
}
