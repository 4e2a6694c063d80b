// Each database the embedded cluster hands out belongs to a role of its own:
// LOGIN, and nothing more (no SUPERUSER, CREATEDB, CREATEROLE, REPLICATION or
// BYPASSRLS). The engine connects and runs its migrations with that role, so
// a leaked database URL or an SQL injection reaches flowhook's tables, not the
// cluster, its files or the server's OS account. The cluster's superuser is
// used only here, to create the role and the database.
import { createHmac } from 'node:crypto';
import pg from 'pg';

const SUFFIX = '_owner';
/** PostgreSQL truncates longer identifiers, which would silently change the role's name. */
const MAX_IDENTIFIER = 63;

export type DatabaseOwner = { role: string; password: string };

/**
 * The role that owns `database`, and its password. Derived from the superuser's
 * password (one-way), so it is the same at every start without a second file
 * to keep, and knowing it reveals nothing about the superuser's.
 */
export function databaseOwner(database: string, superuserPassword: string): DatabaseOwner {
  const role = `${database}${SUFFIX}`;
  if (Buffer.byteLength(role) > MAX_IDENTIFIER)
    throw new Error(
      `database name "${database}" is too long: its owner role "${role}" must fit in ${MAX_IDENTIFIER} bytes`,
    );
  return {
    role,
    password: createHmac('sha256', superuserPassword).update(`database owner:${role}`).digest('base64url'),
  };
}

/**
 * Creates the owner role and the database unless they exist (idempotent, safe
 * when two processes race), and makes the role own the database and everything
 * in it: a database made before roles existed (owned by the superuser) is
 * handed over, so its migrations keep working under the new role.
 */
export async function ensureOwnedDatabase(superuserUrl: string, database: string, owner: DatabaseOwner): Promise<void> {
  if (!database) throw new Error('createDatabase: the name must not be empty');
  const admin = new pg.Client({ connectionString: superuserUrl });
  await admin.connect();
  let handOver = false;
  try {
    await ensureRole(admin, owner);
    const role = admin.escapeIdentifier(owner.role);
    const found = await admin.query<{ owner: string }>(
      'select pg_get_userbyid(datdba) as owner from pg_database where datname = $1',
      [database],
    );
    if (!found.rowCount) {
      try {
        await admin.query(`create database ${admin.escapeIdentifier(database)} owner ${role}`);
      } catch (error) {
        // Another process created it between our check and our create.
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
    } else if (found.rows[0].owner !== owner.role) {
      await admin.query(`alter database ${admin.escapeIdentifier(database)} owner to ${role}`);
      handOver = true;
    }
    // Other roles of this cluster (another database's owner) have no business here.
    await admin.query(`revoke connect, temporary on database ${admin.escapeIdentifier(database)} from public`);
  } finally {
    await admin.end().catch(() => undefined);
  }
  if (handOver) await handOverObjects(superuserUrl, database, owner.role);
}

async function ensureRole(admin: pg.Client, owner: DatabaseOwner): Promise<void> {
  const role = admin.escapeIdentifier(owner.role);
  // The password travels in the statement (DDL takes no parameters); the server logs no statements
  // (log_min_error_statement=panic, log_statement none) and we never log it either.
  const attributes = `login nosuperuser nocreatedb nocreaterole noreplication nobypassrls password ${admin.escapeLiteral(owner.password)}`;
  const exists = await admin.query('select 1 from pg_roles where rolname = $1', [owner.role]);
  if (!exists.rowCount) {
    try {
      await admin.query(`create role ${role} ${attributes}`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '42710') throw error;
    }
  }
  // Also takes back any attribute someone granted it since.
  await admin.query(`alter role ${role} ${attributes}`);
}

/**
 * Tables (their indexes and serial sequences follow), free-standing sequences,
 * views, types, routines and schemas the superuser made in this database go to
 * the owner. REASSIGN OWNED cannot be used: the superuser also owns the system catalogs.
 */
async function handOverObjects(superuserUrl: string, database: string, role: string): Promise<void> {
  const url = new URL(superuserUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  try {
    const { rows } = await client.query<{ statement: string }>(HAND_OVER_STATEMENTS, [role]);
    await client.query('begin');
    for (const { statement } of rows) await client.query(statement);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const USER_SCHEMA = `n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`;
const HAND_OVER_STATEMENTS = `
  select format('alter schema %I owner to %I', n.nspname, $1::text) as statement
    from pg_namespace n where n.nspowner = current_user::regrole and ${USER_SCHEMA}
  union all
  select format('alter %s %s owner to %I',
      case c.relkind when 'S' then 'sequence' when 'v' then 'view' when 'm' then 'materialized view' when 'f' then 'foreign table' else 'table' end,
      c.oid::regclass, $1::text)
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relowner = current_user::regrole and ${USER_SCHEMA} and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
      and not (c.relkind = 'S' and exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype in ('a', 'i')))
  union all
  select format('alter type %s owner to %I', t.oid::regtype, $1::text)
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where t.typowner = current_user::regrole and ${USER_SCHEMA} and t.typtype in ('e', 'd')
  union all
  select format('alter routine %s owner to %I', p.oid::regprocedure, $1::text)
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where p.proowner = current_user::regrole and ${USER_SCHEMA} and p.prokind in ('f', 'p')`;
