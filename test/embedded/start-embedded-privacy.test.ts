// `flowhook start` on a fresh data directory with the embedded PostgreSQL and
// the Temporal dev server, as `npm start` runs it: the engine is connected as
// the database's owner role (not the superuser), the children it started carry
// none of its FLOWHOOK_* settings, and the data directory's files are private
// again after a start found one loosened.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import pg from 'pg';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { resolveTemporalCli } from '../../bin/embedded/temporal-cli.ts';
import { startFlowhook, startPorts, stopFlowhook } from '../support/flowhook-start.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const CANARY = `canary-${randomBytes(8).toString('hex')}`;

function environNames(pid: number): { names: string[]; holdsCanary: boolean } {
  const raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  return {
    names: raw
      .split('\0')
      .filter(Boolean)
      .map((entry) => entry.slice(0, entry.indexOf('='))),
    holdsCanary: raw.includes(CANARY),
  };
}

test('npm start: the engine is not a superuser, its children hold no secrets, its files are private', async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'flowhook-start-private-'));
  t.teardown(() => rmSync(parent, { recursive: true, force: true }));
  // Run as root, the embedded PostgreSQL runs as another account, which must pass through.
  chmodSync(parent, 0o711);
  const dataDir = join(parent, 'data');
  // A restored payload key, readable by everyone.
  mkdirSync(dataDir, { mode: 0o755 });
  writeFileSync(join(dataDir, 'payload-key'), `${randomBytes(32).toString('base64')}\n`);
  chmodSync(join(dataDir, 'payload-key'), 0o644);

  // As a new user's shell: nothing of the test run's FLOWHOOK_*/TEMPORAL_* (so PostgreSQL is embedded).
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('FLOWHOOK_') && !name.startsWith('TEMPORAL_')),
  );
  Object.assign(env, {
    FLOWHOOK_DATA_DIR: dataDir,
    TEMPORAL_CLI: await resolveTemporalCli({ dataDir: join(ROOT, '.flowhook'), log: () => undefined }),
    FLOWHOOK_EMBEDDED_POSTGRES_PORT: String(await findFreePort()),
    ...(await startPorts()),
    // Secrets in start's own environment, to look for in its children's.
    FLOWHOOK_METRICS_TOKEN: CANARY,
    PGPASSWORD: CANARY,
  });
  const started = await startFlowhook(env);
  t.teardown(() => void stopFlowhook(started));

  t.regex(
    started.output(),
    new RegExp(`tightened: .*${join(dataDir, 'payload-key').replaceAll('/', '\\/')} \\(was 0644, now 0600\\)`),
  );
  t.is(
    statSync(dataDir).mode & 0o077 & ~0o010,
    0,
    'the directory is private (group search only, for PostgreSQL under root)',
  );
  for (const name of readdirSync(dataDir)) {
    const stats = statSync(join(dataDir, name));
    if (stats.isFile()) t.is(stats.mode & 0o777, 0o600, name);
  }
  for (const name of [
    'admin-token',
    'facade-token',
    'worker-token',
    'payload-key',
    'secrets-key',
    'postgres-password',
    'temporal.db',
  ]) {
    t.true(readdirSync(dataDir).includes(name), `${name} is there`);
  }

  // Who the engine is, asked as the cluster's superuser.
  const superuser = new pg.Client({
    host: '127.0.0.1',
    port: Number(env.FLOWHOOK_EMBEDDED_POSTGRES_PORT),
    user: 'flowhook',
    password: readFileSync(join(dataDir, 'postgres-password'), 'utf8').trim(),
    database: 'postgres',
  });
  await superuser.connect();
  try {
    const sessions = await superuser.query<{ usename: string; rolsuper: boolean }>(
      "select distinct a.usename, r.rolsuper from pg_stat_activity a join pg_roles r on r.rolname = a.usename where a.datname = 'flowhook'",
    );
    t.deepEqual(sessions.rows, [{ usename: 'flowhook_owner', rolsuper: false }]);
    const owner = await superuser.query(
      "select pg_get_userbyid(datdba) as owner from pg_database where datname = 'flowhook'",
    );
    t.is(owner.rows[0].owner, 'flowhook_owner');
  } finally {
    await superuser.end();
  }

  // The children: the postmaster (first line of postmaster.pid) and the dev server (temporal.db.pid).
  const postgresPid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const temporalPid = Number(readFileSync(join(dataDir, 'temporal.db.pid'), 'utf8'));
  for (const [who, pid] of [
    ['PostgreSQL', postgresPid],
    ['Temporal dev server', temporalPid],
  ] as const) {
    const { names, holdsCanary } = environNames(pid);
    t.deepEqual(
      names.filter((name) => name.startsWith('FLOWHOOK_') || name.startsWith('TEMPORAL_') || name.startsWith('PG')),
      [],
      who,
    );
    t.false(holdsCanary, `${who}: no secret value`);
  }

  t.is(await stopFlowhook(started), 0);
});
