// Verifies who is calling before anything else is looked up, so an
// unauthenticated caller learns nothing about companies or activities.
// Basic callers are checked here against the stored key hash; application
// callers arrive with a token the facade has already verified, and are
// accepted only when registered under the token's issuer (and tenant, when
// one is registered), consented and enabled: a client id is only
// the issuer's name for an application, so the same client id from another
// trusted issuer is refused, and so is a registration that names no issuer
// (one made before issuers were bound: guessing would let any issuer in). Every
// refusal says why in its error's `reason` (for the log line only); the
// caller's answer is the same "Unauthorized" whatever the reason.
import type { EntityManager } from '@mikro-orm/postgresql';
import type {
  BasicCredentials,
  Caller,
  VerifiedApplication,
} from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { exceedsNameLimit } from '../../../common/name-limits.ts';
import type { RefusedCall } from '../../../common/refusal-reasons.ts';
import { matchesHash } from './credentials.ts';
import { PermissionDeniedError, UnauthenticatedError } from '../../errors.ts';
import type { ServiceAccountIdentity } from './service-account-tokens.ts';
import { normalizeIssuer } from './application-issuer.ts';
import type { ApplicationSnapshot, CallerDirectory, PermissionGrant, ServiceUserSnapshot } from './caller-directory.ts';

export interface CallerIdentity {
  /** service-account: an internal service calling with its own invoke account. */
  kind: 'service-user' | 'application' | 'service-account';
  id: string;
  /** User name or client id, for messages. */
  name: string;
  /** How the execution records the caller (`user:<name>`, `app:<clientId>`, `account:<name>`): never a credential. */
  label: string;
  grants: readonly PermissionGrant[];
}

/**
 * The facade's account (forwardsCallers) passes on the end user it verified;
 * any other invoke account is itself the caller and may not name another —
 * that is what keeps an internal service from claiming to be an OAuth
 * application or a Basic user.
 */
export async function authenticateCaller(
  directory: CallerDirectory,
  em: EntityManager,
  caller: Caller | undefined,
  now: Date,
  account: ServiceAccountIdentity,
): Promise<CallerIdentity> {
  const identity = caller?.identity;
  if (!account.forwardsCallers) {
    if (identity?.case !== undefined) {
      throw new PermissionDeniedError(
        `only the facade's service account may pass on a caller; call without \`caller\` and the execution records service account "${account.name}" as its caller`,
        { reason: 'caller_forwarding_refused' },
      );
    }
    return {
      kind: 'service-account',
      id: account.name,
      name: account.name,
      label: `account:${account.name}`,
      grants: [],
    };
  }
  if (identity?.case === 'basic') return authenticateServiceUser(directory, em, identity.value, now);
  if (identity?.case === 'application') return authenticateApplication(directory, em, identity.value);
  throw new UnauthenticatedError('Unauthorized', 'missing_credentials');
}

/** Who the caller claims to be, for the refusal log line: the Basic user name or the client id and issuer, never a key. */
export function claimedCaller(caller: Caller | undefined): Pick<RefusedCall, 'user' | 'clientId' | 'issuer'> {
  const identity = caller?.identity;
  if (identity?.case === 'basic') return { user: identity.value.userName };
  if (identity?.case === 'application')
    return { clientId: identity.value.clientId, issuer: identity.value.issuer || undefined };
  return {};
}

async function authenticateServiceUser(
  directory: CallerDirectory,
  em: EntityManager,
  credentials: BasicCredentials,
  now: Date,
): Promise<CallerIdentity> {
  const { userName, accessKey } = credentials;
  // A name longer than any user's is unknown without asking the directory, which would remember it.
  const user = userName && !exceedsNameLimit('user', userName) ? await directory.serviceUser(em, userName) : undefined;
  // Compare even for an unknown user, so its absence does not answer faster.
  const keyMatches = matchesHash(accessKey, user?.accessKeyHash);
  admitServiceUser(user, keyMatches, now);
  return { kind: 'service-user', id: user.id, name: user.name, label: `user:${user.name}`, grants: user.grants };
}

/**
 * Throws with the first reason that refuses the user. A wrong key is reported
 * before the user's state, so `user_disabled` and `key_expired` only ever
 * describe a caller that proved it holds the key.
 */
export function admitServiceUser(
  user: ServiceUserSnapshot | undefined,
  keyMatches: boolean,
  now: Date,
): asserts user is ServiceUserSnapshot {
  if (!user) throw new UnauthenticatedError('Unauthorized', 'unknown_user');
  if (!keyMatches) throw new UnauthenticatedError('Unauthorized', 'bad_key');
  if (!user.enabled) throw new UnauthenticatedError('Unauthorized', 'user_disabled');
  if (user.accessKeyExpiresAt !== null && user.accessKeyExpiresAt <= now.getTime())
    throw new UnauthenticatedError('Unauthorized', 'key_expired');
}

async function authenticateApplication(
  directory: CallerDirectory,
  em: EntityManager,
  verified: VerifiedApplication,
): Promise<CallerIdentity> {
  const registrations = verified.clientId ? await directory.applications(em, verified.clientId) : undefined;
  const app = admitApplication(registrations, verified);
  return { kind: 'application', id: app.id, name: app.clientId, label: `app:${app.clientId}`, grants: app.grants };
}

/**
 * The registration of the token's client id under the token's issuer, or the
 * first reason that refuses it. Issuer and tenant say whether this is the
 * registered application at all, so they come before its consent and State;
 * consent is the registration step, State the on/off switch: a new
 * application lacks both, and consent comes first.
 */
export function admitApplication(
  registrations: readonly ApplicationSnapshot[] | undefined,
  verified: Pick<VerifiedApplication, 'issuer' | 'tenantId'>,
): ApplicationSnapshot {
  if (!registrations || registrations.length === 0) throw new UnauthenticatedError('Unauthorized', 'unknown_app');
  const issuer = normalizeIssuer(verified.issuer);
  const app = issuer === '' ? undefined : registrations.find((registration) => registration.issuer === issuer);
  if (!app) {
    // An unbound registration may well be meant for this issuer: say so, as its fix differs.
    throw new UnauthenticatedError(
      'Unauthorized',
      registrations.some((registration) => registration.issuer === null) ? 'app_issuer_unset' : 'app_issuer_mismatch',
    );
  }
  if (app.tenantId !== null && app.tenantId !== verified.tenantId)
    throw new UnauthenticatedError('Unauthorized', 'app_tenant_mismatch');
  if (!app.consentGranted) throw new UnauthenticatedError('Unauthorized', 'app_not_consented');
  if (!app.enabled) throw new UnauthenticatedError('Unauthorized', 'app_disabled');
  return app;
}
