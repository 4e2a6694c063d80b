// Verifies who is calling before anything else is looked up, so an
// unauthenticated caller learns nothing about companies or activities.
// Basic callers are checked here against the stored key hash; application
// callers arrive with a token the facade has already verified, and are
// accepted only when registered, consented and enabled (spec §5.1).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BasicCredentials, Caller, VerifiedApplication } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { matchesHash } from '../security/credentials.ts';
import { UnauthenticatedError } from '../errors.ts';
import type { CallerDirectory, PermissionGrant } from './caller-directory.ts';

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
  throw new UnauthenticatedError('Unauthorized');
}

async function authenticateServiceUser(directory: CallerDirectory, em: EntityManager, credentials: BasicCredentials, now: Date): Promise<CallerIdentity> {
  const { userName, accessKey } = credentials;
  const user = userName ? await directory.serviceUser(em, userName) : undefined;
  // Compare even for an unknown user, so its absence does not answer faster.
  const keyMatches = matchesHash(accessKey, user?.accessKeyHash);
  if (!user || !keyMatches || !user.enabled) throw new UnauthenticatedError('Unauthorized');
  if (user.accessKeyExpiresAt !== null && user.accessKeyExpiresAt <= now.getTime()) throw new UnauthenticatedError('Unauthorized');
  return { kind: 'service-user', id: user.id, name: user.name, label: `user:${user.name}`, grants: user.grants };
}

async function authenticateApplication(directory: CallerDirectory, em: EntityManager, verified: VerifiedApplication): Promise<CallerIdentity> {
  const app = verified.clientId ? await directory.application(em, verified.clientId) : undefined;
  if (!app || !app.enabled || !app.consentGranted) throw new UnauthenticatedError('Unauthorized');
  return { kind: 'application', id: app.id, name: app.clientId, label: `app:${app.clientId}`, grants: app.grants };
}
