// Keeping an OpenID Connect session's roles current: when a session is
// presented and its roles were last confirmed longer ago than
// FLOWHOOK_CONSOLE_OIDC_RECHECK, the identity provider is asked again with the
// refresh token it issued at sign-in (console-oidc.ts `recheck`). The session
// then takes the roles the provider gives now, or ends: the provider refused,
// answered for someone else, or gives no console role any more.
//
// One check at a time per session, across engines: an engine claims the check
// on the row (`check_held_until`, a conditional update) and the others go on
// with the roles as they are meanwhile; on this engine, calls of the session
// wait for the one check in flight. So the provider sees at most one refresh
// per session and interval (a rotated refresh token is never used twice).
// A provider that cannot be reached decides nothing: the session keeps its
// roles, the check is tried again a minute later — until the roles are two
// intervals old; then the session ends (without the provider nobody signs in
// either).
//
// The refresh token is sealed by the secret store (engine/infrastructure/secret-store/, AES-GCM
// under FLOWHOOK_SECRETS_KEY, bound to the session's key). Without a secret
// store key, or from a provider that issues no refresh token, nothing is kept
// and the session keeps the roles of its sign-in until it expires.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { decryptSecret, encryptSecret } from '../../infrastructure/secret-store/envelope-encryption.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import { ConsoleSession } from '../../infrastructure/storage/entities.ts';
import type { OidcClient, OidcPerson } from './console-oidc.ts';
import type { RoleGrants } from '../../domain/callers/console-roles.ts';
import type { ConsoleSessions, FoundSession } from './console-sessions.ts';
import { ProviderUnavailableError } from '../http/oidc-provider.ts';

/** Longer than a check can take (discovery, token endpoint and keys, ten seconds each). */
const CHECK_HOLD_SECONDS = 60;
/** After the provider could not be reached: the next try, from any engine (sooner when the interval is shorter). */
const RETRY_MS = 60_000;

export interface SessionRecheckDeps {
  orm: MikroORM;
  sessions: ConsoleSessions;
  client: OidcClient;
  keyring: SecretKeyring;
  intervalMs: number;
  logger: Logger;
}

export interface SessionRecheck {
  /** What a new session keeps to be re-checked with; undefined when nothing can be kept. */
  seal(key: string, person: OidcPerson): string | undefined;
  /** The session with its roles current: re-checked when due; undefined when it ended. */
  current(session: FoundSession): Promise<FoundSession | undefined>;
}

interface Grant {
  refreshToken: string;
  subject: string;
}

export function createSessionRecheck(deps: SessionRecheckDeps): SessionRecheck {
  const inFlight = new Map<string, Promise<FoundSession | undefined>>();
  let warned = false;
  const end = async (session: FoundSession, reason: string) => {
    await deps.sessions.close(session.key);
    deps.logger.info(
      { person: session.identity.person, reason },
      'console session ended: its roles could not be confirmed at the identity provider',
    );
    return undefined;
  };

  const check = async (session: FoundSession): Promise<FoundSession | undefined> => {
    const sealed = await claim(deps.orm, session.key, deps.intervalMs);
    // Another engine is checking (or waiting to retry): its verdict reaches this one through the row.
    if (sealed === undefined) return session;
    let grant: Grant;
    try {
      grant = JSON.parse(decryptSecret(deps.keyring, sealed, contextOf(session.key))) as Grant;
    } catch {
      return end(session, 'its refresh token cannot be decrypted (a secret store key was removed)');
    }
    try {
      const found = await deps.client.recheck(grant);
      if (!found.confirmed) return await end(session, found.reason);
      const checkedAt = new Date();
      await deps.orm.em.fork().nativeUpdate(
        ConsoleSession,
        { id: session.key },
        {
          roles: { ...found.grants },
          checkedAt,
          providerGrant: sealGrant(deps.keyring, session.key, { ...grant, refreshToken: found.refreshToken }),
          checkHeldUntil: null,
        },
      );
      return { ...session, identity: { ...session.identity, roles: found.grants as RoleGrants }, checkedAt };
    } catch (error) {
      const reason = error instanceof ProviderUnavailableError ? error.message : 'the re-check failed';
      if (Date.now() - session.checkedAt.getTime() >= 2 * deps.intervalMs)
        return end(session, `${reason}, for longer than a re-check interval`);
      const retryMs = Math.min(RETRY_MS, deps.intervalMs);
      await deps.orm.em
        .fork()
        .nativeUpdate(ConsoleSession, { id: session.key }, { checkHeldUntil: new Date(Date.now() + retryMs) });
      deps.logger.warn(
        { person: session.identity.person, reason, retryInSeconds: retryMs / 1000 },
        'console session: roles not re-checked, the session keeps them for now',
      );
      return session;
    }
  };

  return {
    seal(key, person) {
      if (person.refreshToken === undefined) return undefined;
      if (!deps.keyring.configured) {
        if (!warned)
          deps.logger.warn(
            'no secret store key: OpenID Connect sessions keep no refresh token and the roles of their sign-in until they expire',
          );
        warned = true;
        return undefined;
      }
      return sealGrant(deps.keyring, key, { refreshToken: person.refreshToken, subject: person.subject });
    },
    current(session) {
      if (
        session.identity.via !== 'oidc' ||
        !session.rechecks ||
        Date.now() - session.checkedAt.getTime() < deps.intervalMs
      )
        return Promise.resolve(session);
      let flight = inFlight.get(session.key);
      if (!flight) {
        flight = check(session).finally(() => inFlight.delete(session.key));
        inFlight.set(session.key, flight);
      }
      return flight;
    },
  };
}

/** Takes the session's check for this engine, returning the sealed grant; undefined when it is not due or another engine holds it. */
async function claim(orm: MikroORM, key: string, intervalMs: number): Promise<string | undefined> {
  const rows = await orm.em.getConnection().execute<{ provider_grant: string | null }[]>(
    `update "console_session" set "check_held_until" = now() + make_interval(secs => ?)
      where "id" = ? and "provider_grant" is not null and "checked_at" <= now() - make_interval(secs => ?)
        and ("check_held_until" is null or "check_held_until" < now())
      returning "provider_grant"`,
    [CHECK_HOLD_SECONDS, key, intervalMs / 1000],
  );
  return rows[0]?.provider_grant ?? undefined;
}

function sealGrant(keyring: SecretKeyring, key: string, grant: Grant): string {
  return encryptSecret(keyring, JSON.stringify(grant), contextOf(key));
}

/** A sealed grant opens only in its own session's row. */
function contextOf(key: string): string {
  return `console-session:${key}`;
}
