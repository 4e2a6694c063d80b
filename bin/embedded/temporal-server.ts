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
import { canConnect, findFreePort } from './free-port.ts';
import { logUnexpectedExit, readyOrStopped, spawnServer } from './server-process.ts';
import { childEnvironment } from './child-environment.ts';
import { probeDevServer } from './temporal-probe.ts';
import type { SearchAttributeType } from './temporal-dev-server.ts';
import { DATABASES, dynamicConfig, serverConfig, servicePorts } from './temporal-server-config.ts';
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

export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const workDir = resolve(options.workDir);
  const configDir = join(workDir, 'config');
  mkdirSync(join(configDir, 'dynamicconfig'), { recursive: true, mode: 0o700 });
  const postgres = new URL(options.postgresUrl);
  await setUpDatabases(options, postgres);

  const ports = { frontend: options.port ?? (await findFreePort()), ...(await servicePorts()) };
  writeFileSync(
    join(configDir, 'flowhook.yaml'),
    serverConfig(postgres, ports, options.numHistoryShards ?? 4, join(configDir, 'dynamicconfig', 'flowhook.yaml')),
    { mode: 0o600 },
  );
  writeFileSync(join(configDir, 'dynamicconfig', 'flowhook.yaml'), dynamicConfig(options.dynamicConfig ?? {}), {
    mode: 0o600,
  });

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
  await readyOrStopped(server, () => waitUntilServing(options, server, address));
  logUnexpectedExit(server, 'the Temporal server', options.log);
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
    const tool = (args: string[]) =>
      run(options.install.sqlTool, ['--db', database, ...args], { env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    try {
      // Version 0.0 creates the tool's bookkeeping tables; the versioned directory does the rest.
      await tool(['setup-schema', '-v', '0.0']);
      await tool(['update-schema', '-d', join(options.install.postgresSchema, schema, 'versioned')]);
    } catch (error) {
      const failure = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(
        `the Temporal SQL tool could not set up ${database}: ${(failure.stderr || failure.stdout || failure.message).trim().split('\n').slice(-3).join(' ')}`,
      );
    }
  }
}

async function waitUntilServing(
  options: TemporalServerOptions,
  server: Awaited<ReturnType<typeof spawnServer>>,
  address: string,
): Promise<void> {
  const deadline = Date.now() + (options.startupTimeoutMs ?? 120_000);
  const attributes = Object.entries(options.searchAttributes ?? {});
  const cli = (args: string[]) =>
    run(options.cliPath, [...args, '--address', address], { env: childEnvironment(), timeout: 15_000 });
  let registered = false;
  let why = 'the frontend port never opened';
  for (;;) {
    if (server.hasExited())
      throw new Error(
        `the Temporal server ended during startup (${server.exitStatus()}). Its last output:\n${server.tail.text()}`,
      );
    if (await canConnect(HOST, Number(address.split(':').pop()))) {
      try {
        if (!registered) {
          await alreadyExistsIsFine(
            cli(['operator', 'namespace', 'create', '--namespace', 'default', '--retention', '24h']),
          );
          if (attributes.length > 0) {
            await alreadyExistsIsFine(
              cli([
                'operator',
                'search-attribute',
                'create',
                '--namespace',
                'default',
                ...attributes.flatMap(([name, type]) => ['--name', name, '--type', type]),
              ]),
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
      throw new Error(
        `the Temporal server on ${address} was not ready in time (${why.split('\n').slice(-2).join(' ')}). Its last output:\n${server.tail.text()}`,
      );
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
