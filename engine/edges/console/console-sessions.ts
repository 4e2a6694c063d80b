// The console's sessions, in PostgreSQL (engine/infrastructure/storage/console-session.entity.ts):
// any engine serves any session, and a sign-out holds for all of them. The
// browser holds a random cookie value; the table holds its SHA-256. A session
// lasts FLOWHOOK_CONSOLE_SESSION_TTL; an expired one is deleted when it is
// next presented and by the retention schedule's purge (engine/domain/retention/). Admins list and end sessions
// (console-session-admin-service.ts); nothing read out of here for them
// names a cookie or its hash.
import type { MikroORM } from '@mikro-orm/postgresql';
import { newSessionSecret, sessionKey } from '../http/browser-sessions.ts';
import { ConsoleSession } from '../../infrastructure/storage/entities.ts';
import { isConsoleRole, type ConsoleRoleName, type RoleGrants } from '../../domain/callers/console-roles.ts';

export type SignInMethod = 'admin-token' | 'oidc';

/** Who a session is, and what they may do. */
export interface ConsoleIdentity {
  /** The person, as the audit log names them. */
  person: string;
  via: SignInMethod;
  /** The service account behind an admin-token session; OIDC_ACCOUNT for people of the identity provider. */
  account: string;
  /** Admin-token sessions: the keyed hash of the token (engine/domain/callers/admin-credentials.ts credentialMac). */
  tokenMac?: string;
  roles: RoleGrants;
}

export interface FoundSession {
  /** The SHA-256 of the cookie value: what the CSRF token is derived from. */
  key: string;
  identity: ConsoleIdentity;
  createdAt: Date;
  expiresAt: Date;
  /** When the roles were last confirmed (the sign-in, or the identity provider's last re-check). */
  checkedAt: Date;
  /** OpenID Connect: the provider can re-read the roles (a sealed refresh token is kept). */
  rechecks: boolean;
}

/** The audit log's account for people who signed in with the identity provider. */
export const OIDC_ACCOUNT = 'console-oidc';

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

  /**
   * A new session; returns the cookie value (shown to nobody but the browser). `sealGrant` seals what
   * re-reads an OpenID Connect session's roles, bound to the session's key (session-recheck.ts).
   */
  async open(
    identity: ConsoleIdentity,
    sealGrant?: (key: string) => string | undefined,
  ): Promise<{ cookieValue: string; session: FoundSession }> {
    const { cookieValue, key } = newSessionSecret();
    const providerGrant = sealGrant?.(key);
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.#ttlMs);
    await this.#orm.em.fork().insert(ConsoleSession, {
      id: key,
      person: identity.person,
      via: identity.via,
      account: identity.account,
      tokenMac: identity.tokenMac ?? null,
      roles: { ...identity.roles },
      createdAt: now,
      expiresAt,
      checkedAt: now,
      providerGrant: providerGrant ?? null,
      checkHeldUntil: null,
    });
    return {
      cookieValue,
      session: { key, identity, createdAt: now, expiresAt, checkedAt: now, rechecks: providerGrant !== undefined },
    };
  }

  async find(cookieValue: string): Promise<FoundSession | undefined> {
    const key = sessionKey(cookieValue);
    const em = this.#orm.em.fork();
    const row = await em.findOne(ConsoleSession, { id: key });
    if (!row) return undefined;
    if (row.expiresAt.getTime() <= Date.now()) {
      await em.nativeDelete(ConsoleSession, { id: key });
      return undefined;
    }
    return sessionOf(row);
  }

  /** Ends a session by its key (sign-out, or a credential that no longer holds). */
  async close(key: string): Promise<void> {
    await this.#orm.em.fork().nativeDelete(ConsoleSession, { id: key });
  }
}

/** Every live session, newest first (for admins: ConsoleSessionAdminService, on any engine, the console on or off). */
export async function listSessions(orm: MikroORM): Promise<FoundSession[]> {
  const rows = await orm.em
    .fork()
    .find(ConsoleSession, { expiresAt: { $gt: new Date() } }, { orderBy: { createdAt: 'desc' } });
  return rows.map(sessionOf);
}

/** Ends every session of one person, or every session; resolves to how many ended. */
export function endSessions(orm: MikroORM, which: { person: string } | 'all'): Promise<number> {
  return orm.em.fork().nativeDelete(ConsoleSession, which === 'all' ? {} : { person: which.person });
}

function sessionOf(row: ConsoleSession): FoundSession {
  const identity: ConsoleIdentity = {
    person: row.person,
    via: row.via === 'oidc' ? 'oidc' : 'admin-token',
    account: row.account,
    tokenMac: row.tokenMac ?? undefined,
    roles: storedGrants(row.roles),
  };
  return {
    key: row.id,
    identity,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    checkedAt: row.checkedAt,
    rechecks: row.providerGrant !== null,
  };
}

/** The grants as stored; an entry that is not a role (an older or altered row) grants nothing. */
function storedGrants(stored: Record<string, string>): RoleGrants {
  const grants: Record<string, ConsoleRoleName> = {};
  for (const [company, role] of Object.entries(stored)) if (isConsoleRole(role)) grants[company] = role;
  return grants;
}
