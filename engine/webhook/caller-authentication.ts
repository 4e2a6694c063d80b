// Verifies who is calling before anything else is looked up, so an
// unauthenticated caller learns nothing about companies or activities.
// Basic callers are checked here against the stored key hash; application
// callers arrive with a token the facade has already verified, and are
// accepted only when registered, consented and enabled (spec §5.1). Every
// refusal says why in its error's `reason` (for the log line only); the
// caller's answer is the same "Unauthorized" whatever the reason.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BasicCredentials, Caller, VerifiedApplication } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { RefusedCall } from '../../common/refusal-reasons.ts';
import { matchesHash } from '../security/credentials.ts';
import { UnauthenticatedError } from '../errors.ts';
import type { ApplicationSnapshot, CallerDirectory, PermissionGrant, ServiceUserSnapshot } from './caller-directory.ts';

export interface CallerIdentity {
  kind: 'service-user' | 'application';
  id: string;
  /** User name or client id, for messages. */
  name: string;
  /** How the execution records the caller (`user:<name>`, `app:<clientId>`): never a credential. */
  label: string;
  grants: readonly PermissionGrant[];
}

export async function authenticateCaller(directory: CallerDirectory, em: EntityManager, caller: Caller | undefined, now: Date): Promise<CallerIdentity> {
  const identity = caller?.identity;
  if (identity?.case === 'basic') return authenticateServiceUser(directory, em, identity.value, now);
  if (identity?.case === 'application') return authenticateApplication(directory, em, identity.value);
  throw new UnauthenticatedError('Unauthorized', 'missing_credentials');
}

/** Who the caller claims to be, for the refusal log line: the Basic user name or the client id, never a key. */
export function claimedCaller(caller: Caller | undefined): Pick<RefusedCall, 'user' | 'clientId'> {
  const identity = caller?.identity;
  if (identity?.case === 'basic') return { user: identity.value.userName };
  if (identity?.case === 'application') return { clientId: identity.value.clientId };
  return {};
}

async function authenticateServiceUser(directory: CallerDirectory, em: EntityManager, credentials: BasicCredentials, now: Date): Promise<CallerIdentity> {
  const { userName, accessKey } = credentials;
  const user = userName ? await directory.serviceUser(em, userName) : undefined;
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
export function admitServiceUser(user: ServiceUserSnapshot | undefined, keyMatches: boolean, now: Date): asserts user is ServiceUserSnapshot {
  if (!user) throw new UnauthenticatedError('Unauthorized', 'unknown_user');
  if (!keyMatches) throw new UnauthenticatedError('Unauthorized', 'bad_key');
  if (!user.enabled) throw new UnauthenticatedError('Unauthorized', 'user_disabled');
  if (user.accessKeyExpiresAt !== null && user.accessKeyExpiresAt <= now.getTime()) throw new UnauthenticatedError('Unauthorized', 'key_expired');
}

async function authenticateApplication(directory: CallerDirectory, em: EntityManager, verified: VerifiedApplication): Promise<CallerIdentity> {
  const app = verified.clientId ? await directory.application(em, verified.clientId) : undefined;
  admitApplication(app);
  return { kind: 'application', id: app.id, name: app.clientId, label: `app:${app.clientId}`, grants: app.grants };
}

/** Consent is the registration step, State the on/off switch: a new application lacks both, and consent comes first. */
export function admitApplication(app: ApplicationSnapshot | undefined): asserts app is ApplicationSnapshot {
  if (!app) throw new UnauthenticatedError('Unauthorized', 'unknown_app');
  if (!app.consentGranted) throw new UnauthenticatedError('Unauthorized', 'app_not_consented');
  if (!app.enabled) throw new UnauthenticatedError('Unauthorized', 'app_disabled');
}
