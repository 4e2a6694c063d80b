// The signing secrets a provider route verifies with, for the route's hot
// path. A cache fill reads the row and decrypts it once; later calls are
// served from memory (no PostgreSQL round trip, no AES) until the change feed
// says a hook secret changed in any engine, or the entry reaches its maximum age.
//
// The replaced secret of a rotation is cached with its deadline, and the
// deadline is checked on every call: an entry filled during the overlap must
// stop offering the old secret the moment the overlap ends, not when the
// entry happens to be dropped.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeFeed } from '../../infrastructure/cache/change-feed.ts';
import { SnapshotCache, type SnapshotCacheOptions } from '../../infrastructure/cache/snapshot-cache.ts';
import { decryptSecret } from '../../infrastructure/secret-store/envelope-encryption.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import { HookSecret } from '../../infrastructure/storage/entities.ts';
import type { HookSecrets } from './verification/index.ts';

export interface HookSecretLookup {
  /**
   * The secrets verifying this route now (previous only inside its overlap),
   * or undefined when none is set. `companyId` is the Company entity's id;
   * the activity is matched lower-cased. Throws KeyringError (FAILED_PRECONDITION)
   * when the stored secret cannot be decrypted with this engine's keys.
   */
  find(em: EntityManager, companyId: string, activity: string): Promise<HookSecrets | undefined>;
}

/** What one cache entry holds: decrypted once, filtered by time on every call. */
interface CachedHookSecrets {
  current: string;
  previous?: { secret: string; validUntilMs: number };
}

/**
 * Misses are remembered too (until the next change): this route is reachable
 * before any verification, so an activity without a secret must not cost a
 * database round trip per request either.
 */
export function createHookSecretLookup(
  feed: ChangeFeed | undefined,
  keyring: SecretKeyring,
  cacheOptions: SnapshotCacheOptions = {},
): HookSecretLookup {
  const now = cacheOptions.now ?? Date.now;
  const cache = new SnapshotCache<CachedHookSecrets>(feed, 'hookSecrets', { rememberMisses: true, ...cacheOptions });
  return {
    async find(em, companyId, activity) {
      const normalized = activity.toLowerCase();
      const found = await cache.get(`${companyId}\u0000${normalized}`, () =>
        load(em, keyring, companyId, normalized, now()),
      );
      if (!found) return undefined;
      const previous = found.previous && found.previous.validUntilMs > now() ? found.previous.secret : undefined;
      return previous === undefined ? { current: found.current } : { current: found.current, previous };
    },
  };
}

async function load(
  em: EntityManager,
  keyring: SecretKeyring,
  companyId: string,
  activity: string,
  nowMs: number,
): Promise<CachedHookSecrets | undefined> {
  const row = await em.findOne(HookSecret, { company: companyId, activity });
  if (!row) return undefined;
  const context = hookSecretContext(row.id);
  const current = decryptSecret(keyring, row.secretCiphertext, context);
  // A previous secret whose overlap is already over is not even decrypted.
  const validUntilMs = row.previousValidUntil?.getTime();
  if (!row.previousCiphertext || validUntilMs === undefined || validUntilMs <= nowMs) return { current };
  return { current, previous: { secret: decryptSecret(keyring, row.previousCiphertext, context), validUntilMs } };
}

/** What a hook secret's ciphertexts are bound to: their row, so a ciphertext moved to another row does not decrypt. */
export function hookSecretContext(rowId: string): string {
  return `hook-secret:${rowId}`;
}
