// Who holds a bearer token: the bootstrap admin token from the environment
// (FLOWHOOK_ADMIN_TOKEN, for deployments that create their accounts with it),
// or a service account found by its token's SHA-256. Accounts are cached per
// token hash and dropped when the change feed says `users` changed, so a
// disabled or rotated account is refused by every engine at once.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ChangeFeed } from '../../infrastructure/cache/change-feed.ts';
import { SnapshotCache, type SnapshotCacheOptions } from '../../infrastructure/cache/snapshot-cache.ts';
import { matchesHash, sha256Hex } from './credentials.ts';
import {
  isServiceAccountScope,
  looksLikeServiceAccountToken,
  tokenHash,
  type ServiceAccountIdentity,
} from './service-account-tokens.ts';
import { ServiceAccount } from '../../infrastructure/storage/entities.ts';

export const BOOTSTRAP_ADMIN = 'bootstrap-admin';

export type TokenLookup =
  | { account: ServiceAccountIdentity }
  | { refused: 'service_token_invalid' | 'service_account_disabled'; name?: string };

export interface ServiceAccountDirectory {
  lookup(token: string): Promise<TokenLookup>;
  /**
   * The account whose current token has this SHA-256 (tokenHash), FLOWHOOK_ADMIN_TOKEN's included:
   * what a session that keeps no token checks again; a rotated token's hash finds nothing.
   */
  lookupByTokenHash(hash: string): Promise<TokenLookup>;
  /** Mutual TLS: the account a verified client certificate names (its CN). */
  lookupByName(name: string): Promise<TokenLookup>;
  /**
   * The SHA-256 of the current token of the account so named — FLOWHOOK_ADMIN_TOKEN's too for
   * bootstrap-admin — for a session that keeps only a keyed hash of its token
   * (security/admin-credentials.ts). Empty when there is none.
   */
  currentTokenHashes(name: string): Promise<string[]>;
}

interface AccountSnapshot extends ServiceAccountIdentity {
  enabled: boolean;
  tokenHash: string;
}

export function createServiceAccountDirectory(
  orm: MikroORM,
  feed: ChangeFeed | undefined,
  bootstrapAdminToken: string | undefined,
  cacheOptions: SnapshotCacheOptions = {},
): ServiceAccountDirectory {
  const bootstrapHash = bootstrapAdminToken === undefined ? undefined : sha256Hex(bootstrapAdminToken);
  // Misses are remembered: a flood of well-formed random tokens costs one query per token at most.
  const accounts = new SnapshotCache<AccountSnapshot>(feed, 'users', {
    ...cacheOptions,
    rememberMisses: true,
    name: 'service_accounts',
  });
  const accountsByName = new SnapshotCache<AccountSnapshot>(feed, 'users', {
    ...cacheOptions,
    rememberMisses: true,
    name: 'service_accounts_by_name',
  });
  const verdictOf = (snapshot: AccountSnapshot | undefined): TokenLookup => {
    if (!snapshot) return { refused: 'service_token_invalid' };
    if (!snapshot.enabled) return { refused: 'service_account_disabled', name: snapshot.name };
    const { enabled: _enabled, tokenHash: _tokenHash, ...account } = snapshot;
    return { account };
  };
  const byTokenHash = async (hash: string) =>
    verdictOf(await accounts.get(hash, () => loadAccount(orm, { tokenHash: hash })));
  const bootstrap: TokenLookup = {
    account: { name: BOOTSTRAP_ADMIN, scope: 'admin', allCompanies: false, companyIds: [], forwardsCallers: false },
  };
  return {
    async lookup(token) {
      if (bootstrapHash !== undefined && matchesHash(token, bootstrapHash)) return bootstrap;
      // A token that cannot be one of ours costs no database round trip.
      if (!looksLikeServiceAccountToken(token)) return { refused: 'service_token_invalid' };
      return byTokenHash(tokenHash(token));
    },
    // The hash comes from a session row of ours, not from a caller: no constant-time compare needed.
    lookupByTokenHash: (hash) =>
      bootstrapHash !== undefined && hash === bootstrapHash ? Promise.resolve(bootstrap) : byTokenHash(hash),
    async lookupByName(name) {
      return verdictOf(await accountsByName.get(name, () => loadAccount(orm, { name })));
    },
    async currentTokenHashes(name) {
      const row = await accountsByName.get(name, () => loadAccount(orm, { name }));
      return [
        ...(name === BOOTSTRAP_ADMIN && bootstrapHash !== undefined ? [bootstrapHash] : []),
        ...(row ? [row.tokenHash] : []),
      ];
    },
  };
}

async function loadAccount(
  orm: MikroORM,
  where: { tokenHash: string } | { name: string },
): Promise<AccountSnapshot | undefined> {
  const row = await orm.em.fork().findOne(ServiceAccount, where);
  if (!row || !isServiceAccountScope(row.scope)) return undefined;
  return {
    name: row.name,
    scope: row.scope,
    allCompanies: row.allCompanies,
    companyIds: [...row.companyIds],
    forwardsCallers: row.forwardsCallers,
    enabled: row.enabled,
    tokenHash: row.tokenHash,
  };
}
