// The console's sessions, in PostgreSQL (engine/storage/console-session.entity.ts):
// any engine serves any session, and a sign-out holds for all of them. The
// browser holds a random cookie value; the table holds its SHA-256. A session
// lasts FLOWHOOK_CONSOLE_SESSION_TTL; an expired one is deleted when it is
// next presented and by the hourly purge.
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { sha256Hex } from '../security/credentials.ts';
import { deleteAgedRows, startAgedRowsPurge } from '../housekeeping/aged-rows.ts';
import type { PeriodicTask } from '../housekeeping/periodic-task.ts';
import { ConsoleSession } from '../storage/entities.ts';
import { isConsoleRole, type ConsoleRoleName, type RoleGrants } from './console-roles.ts';

export type SignInMethod = 'admin-token' | 'oidc';

/** Who a session is, and what they may do. */
export interface ConsoleIdentity {
  /** The person, as the audit log names them. */
  person: string;
  via: SignInMethod;
  /** The service account behind an admin-token session; OIDC_ACCOUNT for people of the identity provider. */
  account: string;
  /** Admin-token sessions: the SHA-256 the directory knows the token by (engine/security/admin-credentials.ts). */
  tokenHash?: string;
  roles: RoleGrants;
}

export interface FoundSession {
  /** The SHA-256 of the cookie value: what the CSRF token is derived from. */
  key: string;
  identity: ConsoleIdentity;
  expiresAt: Date;
}

/** The audit log's account for people who signed in with the identity provider. */
export const OIDC_ACCOUNT = 'console-oidc';

const SESSION_ROWS = { table: 'console_session', key: 'id', column: 'expires_at' };
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

export class ConsoleSessions {
  readonly #orm: MikroORM;
  readonly #ttlMs: number;

  constructor(orm: MikroORM, ttlMs: number) {
    this.#orm = orm;
    this.#ttlMs = ttlMs;
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** A new session; returns the cookie value (shown to nobody but the browser). */
  async open(identity: ConsoleIdentity): Promise<{ cookieValue: string; session: FoundSession }> {
    const cookieValue = randomBytes(32).toString('base64url');
    const key = sha256Hex(cookieValue);
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.#ttlMs);
    await this.#orm.em.fork().insert(ConsoleSession, {
      id: key,
      person: identity.person,
      via: identity.via,
      account: identity.account,
      tokenHash: identity.tokenHash ?? null,
      roles: { ...identity.roles },
      createdAt: now,
      expiresAt,
    });
    return { cookieValue, session: { key, identity, expiresAt } };
  }

  async find(cookieValue: string): Promise<FoundSession | undefined> {
    const key = sha256Hex(cookieValue);
    const em = this.#orm.em.fork();
    const row = await em.findOne(ConsoleSession, { id: key });
    if (!row) return undefined;
    if (row.expiresAt.getTime() <= Date.now()) {
      await em.nativeDelete(ConsoleSession, { id: key });
      return undefined;
    }
    const identity: ConsoleIdentity = {
      person: row.person,
      via: row.via === 'oidc' ? 'oidc' : 'admin-token',
      account: row.account,
      tokenHash: row.tokenHash ?? undefined,
      roles: storedGrants(row.roles),
    };
    return { key, identity, expiresAt: row.expiresAt };
  }

  /** Ends a session by its key (sign-out, or a credential that no longer holds). */
  async close(key: string): Promise<void> {
    await this.#orm.em.fork().nativeDelete(ConsoleSession, { id: key });
  }

  /** Deletes expired sessions at start and every hour (every engine; batched and idempotent). */
  startPurge(logger: Logger): PeriodicTask {
    return startAgedRowsPurge({ orm: this.#orm, logger, rows: SESSION_ROWS, retentionMs: 0, intervalMs: PURGE_INTERVAL_MS, setting: 'FLOWHOOK_CONSOLE_SESSION_TTL' });
  }

  purgeExpired(): Promise<number> {
    return deleteAgedRows(this.#orm, SESSION_ROWS, 0);
  }
}

/** The grants as stored; an entry that is not a role (an older or altered row) grants nothing. */
function storedGrants(stored: Record<string, string>): RoleGrants {
  const grants: Record<string, ConsoleRoleName> = {};
  for (const [company, role] of Object.entries(stored)) if (isConsoleRole(role)) grants[company] = role;
  return grants;
}
