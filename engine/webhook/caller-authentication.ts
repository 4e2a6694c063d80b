// Verifies who is calling before anything else is looked up, so an
// unauthenticated caller learns nothing about companies or activities.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { matchesHash } from '../security/credentials.ts';
import { ServiceUser } from '../storage/entities.ts';
import { UnauthenticatedError } from '../errors.ts';

export interface CallerIdentity {
  kind: 'service-user';
  id: string;
  name: string;
  /** How the execution records the caller: never a credential. */
  label: string;
}

export async function authenticateCaller(em: EntityManager, caller: Caller | undefined, now: Date): Promise<CallerIdentity> {
  const identity = caller?.identity;
  if (identity?.case !== 'basic') {
    // Identity-provider applications arrive with the OAuth issue; until then only Basic is accepted.
    throw new UnauthenticatedError('Unauthorized');
  }
  const { userName, accessKey } = identity.value;
  const user = userName ? await em.findOne(ServiceUser, { name: userName }) : null;
  // Compare even for an unknown user, so its absence does not answer faster.
  const keyMatches = matchesHash(accessKey, user?.accessKeyHash);
  if (!user || !keyMatches || !user.enabled) throw new UnauthenticatedError('Unauthorized');
  if (user.accessKeyExpiresAt && user.accessKeyExpiresAt.getTime() <= now.getTime()) throw new UnauthenticatedError('Unauthorized');
  return { kind: 'service-user', id: user.id, name: user.name, label: `user:${user.name}` };
}
