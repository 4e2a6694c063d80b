// The database URL the embedded PostgreSQL hands out (the one `npm start` gives
// the engine) logs in as a role that owns that database and nothing more; the
// engine's migrations run with it; a database made by an earlier release (owned
// by the superuser) is handed over to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../bin/embedded/embedded-postgres.ts';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { openOrm } from '../../engine/infrastructure/storage/orm.ts';

let postgres: EmbeddedPostgres | undefined;
const errors: string[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'flowhook-pg-role-'));

test.before(async () => {
  postgres = await startEmbeddedPostgres({
    dataDir,
    port: await findFreePort(),
    log: (message) => errors.push(message),
  });
});
test.after.always(async () => {
  await postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, database: string): string {
  const copy = new URL(url);
  copy.pathname = `/${database}`;
  return copy.href;
}

/** Owner of every relation and schema flowhook's migrations made. */
async function ownersOf(url: string): Promise<string[]> {
  const rows = await query<{ owner: string }>(
    url,
    `
    select distinct pg_get_userbyid(c.relowner) as owner from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'
    union select pg_get_userbyid(datdba) from pg_database where datname = current_database()`,
  );
  return rows.map((row) => row.owner);
}

test.serial(
  'the database URL logs in as a role that owns only its database, and the migrations run with it',
  async (t) => {
    const url = await postgres!.createDatabase('flowhook');
    t.is(await postgres!.createDatabase('flowhook'), url, 'the same URL at every call (and every start)');
    t.is(new URL(url).username, 'flowhook_owner');
    t.false(url.includes(new URL(postgres!.url).password), 'not the superuser password');

    const [me] = await query<{
      rolsuper: boolean;
      rolcreatedb: boolean;
      rolcreaterole: boolean;
      rolreplication: boolean;
      rolbypassrls: boolean;
    }>(
      url,
      'select rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls from pg_roles where rolname = current_user',
    );
    t.deepEqual(me, {
      rolsuper: false,
      rolcreatedb: false,
      rolcreaterole: false,
      rolreplication: false,
      rolbypassrls: false,
    });

    const orm = await openOrm({ databaseUrl: url, poolSize: 2 });
    await orm.close();
    const tables = await query<{ count: number }>(
      url,
      "select count(*)::int as count from pg_tables where schemaname = 'public'",
    );
    t.true(tables[0].count > 5, 'the migrations created the tables');
    t.deepEqual(await ownersOf(url), ['flowhook_owner'], 'the role owns the database and all it holds');

    // What a superuser could do and this role cannot.
    const denied = async (sql: string) => (await t.throwsAsync(query(url, sql)))?.message;
    t.regex((await denied('create database other')) ?? '', /permission denied/);
    t.regex((await denied('create role intruder')) ?? '', /permission denied/);
    t.regex(
      (await denied("copy (select 1) to program 'true'")) ?? '',
      /permission denied|must be superuser|privileges of the "pg_execute_server_program"/i,
    );
    t.regex((await denied('select rolpassword from pg_authid')) ?? '', /permission denied/);

    // Another database's owner may not even connect to this one.
    const other = await postgres!.createDatabase('someone_else');
    const error = await t.throwsAsync(query(withDatabase(other, 'flowhook'), 'select 1'));
    t.regex(error?.message ?? '', /permission denied for database "flowhook"/);
    t.deepEqual(
      errors.filter((line) => !/permission denied/.test(line)),
      [],
    );
  },
);

test.serial(
  'a database an earlier release made as the superuser is handed over to the owner role, data and migrations included',
  async (t) => {
    // As before roles: the database and its tables belong to the superuser.
    await query(postgres!.url, 'create database legacy');
    const legacyAsSuperuser = withDatabase(postgres!.url, 'legacy');
    const superuserOrm = await openOrm({ databaseUrl: legacyAsSuperuser, poolSize: 2 });
    await superuserOrm.close();
    await query(
      legacyAsSuperuser,
      "create table notes (id serial primary key, text text); insert into notes (text) values ('kept')",
    );

    const url = await postgres!.createDatabase('legacy');
    t.deepEqual(await ownersOf(url), ['legacy_owner']);
    // The role can write the table and its serial sequence, and later migrations can alter tables.
    await query(url, "insert into notes (text) values ('new'); alter table notes add column extra text");
    t.deepEqual(
      (await query<{ text: string }>(url, 'select text from notes order by id')).map((row) => row.text),
      ['kept', 'new'],
    );
    const orm = await openOrm({ databaseUrl: url, poolSize: 2 });
    await orm.close();
  },
);
