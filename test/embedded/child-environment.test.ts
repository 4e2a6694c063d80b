// The children we start get an allow-listed environment, read back from the
// kernel (/proc/<pid>/environ) of the real embedded PostgreSQL and Temporal dev
// server while our own environment is full of tokens, keys and URLs.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { childEnvironment } from '../../bin/embedded/child-environment.ts';
import { startEmbeddedPostgres } from '../../bin/embedded/embedded-postgres.ts';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { resolveTemporalCli } from '../../bin/embedded/temporal-cli.ts';
import { startTemporalDevServer } from '../../bin/embedded/temporal-dev-server.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const SECRET = `never-in-a-child-${process.pid}-${Date.now()}`;
/** What a flowhook process typically has in its environment; none of it may reach a child. */
const OURS: Record<string, string> = {
  FLOWHOOK_ADMIN_TOKEN: SECRET,
  FLOWHOOK_PAYLOAD_KEY: SECRET,
  FLOWHOOK_DATABASE_URL: `postgres://flowhook:${SECRET}@127.0.0.1:5432/flowhook`,
  PGPASSWORD: SECRET,
  DATABASE_URL: `postgres://u:${SECRET}@db/x`,
  TEMPORAL_API_KEY: SECRET,
  AWS_SECRET_ACCESS_KEY: SECRET,
};

function environOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

function assertClean(t: import('ava').ExecutionContext, pid: number, who: string): Map<string, string> {
  const env = environOf(pid);
  const names = [...env.keys()];
  t.deepEqual(
    names.filter(
      (name) => name.startsWith('FLOWHOOK_') || name.startsWith('TEMPORAL_') || name.startsWith('PG') || name in OURS,
    ),
    [],
    `${who}: none of our variables`,
  );
  t.deepEqual(
    names.filter((name) => env.get(name)!.includes(SECRET)),
    [],
    `${who}: no secret value under any name`,
  );
  t.is(env.get('PATH'), process.env.PATH, `${who}: PATH is passed on`);
  return env;
}

test('childEnvironment keeps PATH, HOME and locale, adds what the child needs, and drops everything else', (t) => {
  const from = {
    PATH: '/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_TIME: 'C',
    TZ: 'UTC',
    ...OURS,
    NODE_OPTIONS: '--inspect',
    SSH_AUTH_SOCK: '/tmp/agent',
  };
  t.deepEqual(childEnvironment({ LC_MESSAGES: 'C' }, from), {
    PATH: '/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_TIME: 'C',
    TZ: 'UTC',
    LC_MESSAGES: 'C',
  });
});

test.serial(
  'embedded PostgreSQL and the Temporal dev server run without our tokens, keys or database URLs',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flowhook-child-env-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const saved = Object.fromEntries(Object.keys(OURS).map((name) => [name, process.env[name]]));
    Object.assign(process.env, OURS);
    t.teardown(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
    const errors: string[] = [];
    const log = (message: string) => errors.push(message);

    const postgres = await startEmbeddedPostgres({ dataDir, port: await findFreePort(), log });
    t.teardown(() => postgres.stop());
    const postgresEnv = assertClean(t, postgres.pid, 'PostgreSQL');
    t.is(postgresEnv.get('LC_MESSAGES'), 'C', 'PostgreSQL gets the setting it is started with');

    const cliPath = await resolveTemporalCli({ dataDir: join(ROOT, '.flowhook'), log });
    const temporal = await startTemporalDevServer({
      cliPath,
      dataDir,
      headless: true,
      port: await findFreePort(),
      log,
    });
    t.teardown(() => temporal.stop());
    assertClean(t, temporal.pid, 'Temporal dev server');
    // Its SQLite file holds every workflow's inputs and results: owner only, whatever the umask.
    t.is(statSync(join(dataDir, 'temporal.db')).mode & 0o777, 0o600);

    await temporal.stop();
    await postgres.stop();
    t.deepEqual(errors, []);
  },
);
