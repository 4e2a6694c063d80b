// A real Temporal server (the official binary, temporal-server-install.ts)
// with persistence and visibility in PostgreSQL — the production topology in
// miniature, for tests and the bench (FLOWHOOK_TEMPORAL=server). Its two
// databases get their schema from the official SQL tool, the `default`
// namespace and our search attributes are registered with the CLI, and it is
// ready only when it answers as a client would ask it (temporal-probe.ts).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { assertPortFree, canConnect, findFreePort } from './free-port.ts';
import { spawnServer } from './server-process.ts';
import { childEnvironment } from './child-environment.ts';
import { probeDevServer } from './temporal-probe.ts';
import { TRANSFER_QUEUE_READS_PER_SECOND, type SearchAttributeType } from './temporal-dev-server.ts';
import type { TemporalServerInstall } from './temporal-server-install.ts';

const run = promisify(execFile);
const HOST = '127.0.0.1';

export type TemporalServerOptions = {
  install: TemporalServerInstall;
  /** The `temporal` CLI, for registering the namespace and search attributes. */
  cliPath: string;
  /** Where its configuration lives (written at each start; holds the database password, mode 0600). */
  workDir: string;
  /** A PostgreSQL superuser connection: `postgres://user:password@host:port/…`. Never logged. */
  postgresUrl: string;
  /** Creates a database unless it exists (EmbeddedPostgres.createDatabase). */
  createDatabase(name: string): Promise<unknown>;
  /** The frontend's gRPC port; a free one when unset. */
  port?: number;
  /** History shards: fixed for the life of the databases (4 here; production sizes it up front). */
  numHistoryShards?: number;
  searchAttributes?: Record<string, SearchAttributeType>;
  /** Extra dynamic configuration (key → value for all namespaces and task queues). */
  dynamicConfig?: Record<string, unknown>;
  /** Receives error-level server lines only. */
  log: (message: string) => void;
  startupTimeoutMs?: number;
};

export type TemporalServer = {
  /** host:port of the frontend. */
  address: string;
  pid: number;
  stop(): Promise<void>;
};

const DATABASES = { temporal: 'temporal', visibility: 'temporal_visibility' } as const;

export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const workDir = resolve(options.workDir);
  const configDir = join(workDir, 'config');
  mkdirSync(join(configDir, 'dynamicconfig'), { recursive: true, mode: 0o700 });
  const postgres = new URL(options.postgresUrl);
  await setUpDatabases(options, postgres);

  const ports = { frontend: options.port ?? (await findFreePort()), ...(await servicePorts()) };
  writeFileSync(join(configDir, 'flowhook.yaml'), serverConfig(postgres, ports, options.numHistoryShards ?? 4, join(configDir, 'dynamicconfig', 'flowhook.yaml')), { mode: 0o600 });
  writeFileSync(join(configDir, 'dynamicconfig', 'flowhook.yaml'), dynamicConfig(options.dynamicConfig ?? {}), { mode: 0o600 });

  const seen = new Map<string, number>();
  const server = await spawnServer({
    name: 'Temporal server',
    command: options.install.server,
    args: ['--root', workDir, '--config', 'config', '--env', 'flowhook', '--allow-no-auth', 'start'],
    env: childEnvironment(),
    stopSteps: [
      { signal: 'SIGTERM', waitMs: 15_000, wholeGroup: true },
      { signal: 'SIGKILL', waitMs: 5_000, wholeGroup: true },
    ],
    onStdoutLine: (line) => forwardErrors(line, options.log, seen),
    onStderrLine: (line) => forwardErrors(line, options.log, seen),
  });
  const address = `${HOST}:${ports.frontend}`;
  try {
    await waitUntilServing(options, server, address);
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }
  void server.exited.then(() => {
    if (!server.stopRequested()) options.log(`the Temporal server (pid ${server.pid}) ended unexpectedly (${server.exitStatus()}). Its last output:\n${server.tail.text()}`);
  });
  return { address, pid: server.pid, stop: () => server.stop() };
}

/** Both databases, schema brought to the release's version by the official tool (idempotent). */
async function setUpDatabases(options: TemporalServerOptions, postgres: URL): Promise<void> {
  const env = {
    ...childEnvironment(),
    SQL_PLUGIN: 'postgres12',
    SQL_HOST: postgres.hostname,
    SQL_PORT: postgres.port || '5432',
    SQL_USER: decodeURIComponent(postgres.username),
    // In the environment, not on the command line (where `ps` shows it).
    SQL_PASSWORD: decodeURIComponent(postgres.password),
  };
  for (const [schema, database] of Object.entries(DATABASES)) {
    await options.createDatabase(database);
    const tool = (args: string[]) => run(options.install.sqlTool, ['--db', database, ...args], { env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    try {
      // Version 0.0 creates the tool's bookkeeping tables; the versioned directory does the rest.
      await tool(['setup-schema', '-v', '0.0']);
      await tool(['update-schema', '-d', join(options.install.postgresSchema, schema, 'versioned')]);
    } catch (error) {
      const failure = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(`the Temporal SQL tool could not set up ${database}: ${(failure.stderr || failure.stdout || failure.message).trim().split('\n').slice(-3).join(' ')}`);
    }
  }
}

type ServicePorts = Record<'frontendHttp' | 'frontendMembership' | 'history' | 'historyMembership' | 'matching' | 'matchingMembership' | 'worker' | 'workerMembership', number>;

async function servicePorts(): Promise<ServicePorts> {
  const ports: Partial<ServicePorts> = {};
  for (const name of ['frontendHttp', 'history', 'matching', 'worker'] as const) ports[name] = await findFreePort();
  // Membership ports are stored in a smallint column of the cluster_membership table: below 32768,
  // where the kernel's ephemeral ports (what findFreePort gets) usually are not.
  const taken = new Set<number>();
  for (const name of ['frontendMembership', 'historyMembership', 'matchingMembership', 'workerMembership'] as const) {
    ports[name] = await freePortBelow32768(taken);
    taken.add(ports[name]);
  }
  return ports as ServicePorts;
}

async function freePortBelow32768(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    try {
      await assertPortFree(HOST, port, 'Temporal membership');
      return port;
    } catch {
      // Taken: try another.
    }
  }
  throw new Error("no free port between 20000 and 32000 for the Temporal server's membership");
}

function serverConfig(postgres: URL, ports: ServicePorts & { frontend: number }, shards: number, dynamicConfigFile: string): string {
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: ${JSON.stringify(`${postgres.hostname}:${postgres.port || '5432'}`)}
        connectProtocol: tcp
        user: ${JSON.stringify(decodeURIComponent(postgres.username))}
        password: ${JSON.stringify(decodeURIComponent(postgres.password))}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (grpc: number, membership: number, http?: number) => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${http ? `\n      httpPort: ${http}` : ''}`;
  return `# Written by flowhook at each start (bin/embedded/temporal-server.ts); edits are overwritten.
log:
  stdout: true
  level: warn
  format: json
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${shards}
  datastores:
    postgres-default:${store(DATABASES.temporal, 20)}
    postgres-visibility:${store(DATABASES.visibility, 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: ${HOST}
services:
  frontend:${service(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  history:${service(ports.history, ports.historyMembership)}
  matching:${service(ports.matching, ports.matchingMembership)}
  worker:${service(ports.worker, ports.workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: ${JSON.stringify(`${HOST}:${ports.frontend}`)}
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${JSON.stringify(dynamicConfigFile)}
  pollInterval: 10s
`;
}

function dynamicConfig(settings: Record<string, unknown>): string {
  const all: Record<string, unknown> = {
    // A freshly created search attribute is usable at once (tests register and use them within seconds).
    'system.forceSearchAttributesCacheRefreshOnRead': true,
    // Task dispatch fair between fairness keys (flowhook sets one per company), not first come first served.
    'matching.enableFairness': true,
    // Fairness holds within a partition; one write partition makes it exact (reads still drain all).
    'matching.numTaskqueueWritePartitions': 1,
    // Few shards (flowhook's own server has four): the default 20 reads a second of each shard's
    // transfer queue put up to 50 ms between one workflow's task and the next (temporal-dev-server.ts).
    'history.transferProcessorMaxPollRPS': TRANSFER_QUEUE_READS_PER_SECOND,
    ...settings,
  };
  return Object.entries(all)
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}\n`)
    .join('');
}

async function waitUntilServing(options: TemporalServerOptions, server: Awaited<ReturnType<typeof spawnServer>>, address: string): Promise<void> {
  const deadline = Date.now() + (options.startupTimeoutMs ?? 120_000);
  const attributes = Object.entries(options.searchAttributes ?? {});
  const cli = (args: string[]) => run(options.cliPath, [...args, '--address', address], { env: childEnvironment(), timeout: 15_000 });
  let registered = false;
  let why = 'the frontend port never opened';
  for (;;) {
    if (server.hasExited()) throw new Error(`the Temporal server ended during startup (${server.exitStatus()}). Its last output:\n${server.tail.text()}`);
    if (await canConnect(HOST, Number(address.split(':').pop()))) {
      try {
        if (!registered) {
          await alreadyExistsIsFine(cli(['operator', 'namespace', 'create', '--namespace', 'default', '--retention', '24h']));
          if (attributes.length > 0) {
            await alreadyExistsIsFine(
              cli(['operator', 'search-attribute', 'create', '--namespace', 'default', ...attributes.flatMap(([name, type]) => ['--name', name, '--type', type])]),
            );
          }
          registered = true;
        }
        const probe = await probeDevServer(
          options.cliPath,
          address,
          'default',
          attributes.map(([name]) => name),
        );
        if (probe.ready) return;
        why = probe.why;
      } catch (error) {
        why = (error as { stderr?: string; message: string }).stderr?.trim() || (error as Error).message;
      }
    }
    if (Date.now() > deadline)
      throw new Error(`the Temporal server on ${address} was not ready in time (${why.split('\n').slice(-2).join(' ')}). Its last output:\n${server.tail.text()}`);
    await sleep(500);
  }
}

async function alreadyExistsIsFine(command: Promise<unknown>): Promise<void> {
  try {
    await command;
  } catch (error) {
    const text = `${(error as { stderr?: string }).stderr ?? ''} ${(error as Error).message}`;
    if (!/already (exists|registered)/i.test(text)) throw error;
  }
}

const ERROR_LEVELS = new Set(['error', 'dpanic', 'panic', 'fatal']);

/**
 * Error lines reach the log, each distinct one three times and then at every power of ten: a
 * client killed mid-call (the multi-node test) makes the server repeat "context canceled" hundreds of times.
 */
function forwardErrors(line: string, log: (message: string) => void, seen: Map<string, number>): void {
  try {
    const entry = JSON.parse(line) as { level?: string; msg?: string; error?: string };
    if (!entry.level || !ERROR_LEVELS.has(entry.level)) return;
    const message = `temporal server: ${entry.msg ?? ''}${entry.error ? ` (${entry.error})` : ''}`;
    const count = (seen.get(message) ?? 0) + 1;
    seen.set(message, count);
    if (count <= 3) log(message);
    else if (/^10+$/.test(String(count))) log(`${message} — ${count} times so far`);
  } catch {
    // Not JSON (a startup banner): the tail keeps it for error messages.
  }
}
