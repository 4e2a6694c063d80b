// Makes sure an account exists whose token is the one a process holds: used by
// `flowhook start` (the facade's, worker's and CLI's accounts, tokens kept in
// 0600 files) and by test stacks. An existing account keeps its name, scope and
// state; a token that no longer matches it (rotated elsewhere, or a file from
// an older release) is replaced by a new one, which the caller stores.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import { ServiceAccount } from '../../infrastructure/storage/entities.ts';
import { looksLikeServiceAccountToken, tokenHash } from './service-account-tokens.ts';
import { createServiceAccount, rotateServiceAccountToken, type NewServiceAccount } from './service-accounts.ts';

export async function ensureServiceAccount(
  em: EntityManager,
  changes: ChangeAnnouncer,
  spec: NewServiceAccount,
  heldToken: string | undefined,
): Promise<{ token: string; enabled: boolean }> {
  const usable = heldToken !== undefined && looksLikeServiceAccountToken(heldToken) ? heldToken : undefined;
  const existing = await em.findOne(ServiceAccount, { name: spec.name });
  if (!existing) return { token: (await createServiceAccount(em, changes, spec, usable)).token, enabled: true };
  if (usable !== undefined && existing.tokenHash === tokenHash(usable))
    return { token: usable, enabled: existing.enabled };
  const { token } = await rotateServiceAccountToken(em, changes, spec.name);
  return { token, enabled: existing.enabled };
}
