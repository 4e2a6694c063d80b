// An admin credential a person hands a sign-in page once (the codec server's
// /login, the console's "Admin token" field): an admin-scope service account
// token or FLOWHOOK_ADMIN_TOKEN. A session opened with it keeps no token, and
// asks the service account directory on every use whether it still holds: a
// rotated token, or its account disabled, deleted or demoted, ends the session
// at once (the change feed clears every engine's cache).
//
// What a session keeps of the token: the codec server's (in one process's
// memory) its SHA-256; the console's (a PostgreSQL row) only a keyed hash of
// the account and that SHA-256 under a deployment key, so a copy of the
// session table offers nothing to guess FLOWHOOK_ADMIN_TOKEN against — it is
// stored nowhere else. The check finds the account's current token hash in the
// directory and compares keyed hashes.
import { BOOTSTRAP_ADMIN, type ServiceAccountDirectory } from './service-account-directory.ts';
import { hmacMatches, hmacOf } from './deployment-keys.ts';
import { looksLikeServiceAccountToken, tokenHash } from './service-account-tokens.ts';

/** The admin account a token belongs to, and the SHA-256 the directory knows it by (never the token). */
export interface AdminCredential {
  account: string;
  tokenHash: string;
  /** FLOWHOOK_ADMIN_TOKEN: no account row, it changes only with the engine's environment. */
  bootstrap: boolean;
}

/** What a stored session keeps: the account, and the keyed hash of it and its token's SHA-256 (credentialMac). */
export interface HeldCredential {
  account: string;
  tokenMac: string;
}

/** The admin credential a token is, or undefined (an OAuth token is never one: those expire on their own clock). */
export async function adminCredentialOf(
  token: string,
  accounts: ServiceAccountDirectory,
): Promise<AdminCredential | undefined> {
  const found = await accounts.lookup(token);
  if (!('account' in found) || found.account.scope !== 'admin') return undefined;
  // A service account may be *named* bootstrap-admin, but its token has our shape.
  const bootstrap = found.account.name === BOOTSTRAP_ADMIN && !looksLikeServiceAccountToken(token);
  return { account: found.account.name, tokenHash: tokenHash(token), bootstrap };
}

/** Whether the credential still opens the admin services: same account, enabled, admin scope, token not rotated. */
export async function stillAdmin(
  accounts: ServiceAccountDirectory,
  credential: Pick<AdminCredential, 'account' | 'tokenHash'>,
): Promise<boolean> {
  const found = await accounts.lookupByTokenHash(credential.tokenHash);
  return 'account' in found && found.account.scope === 'admin' && found.account.name === credential.account;
}

/** The keyed hash a stored session keeps (base64url HMAC-SHA256 under the `console-session` deployment key). */
export function credentialMac(key: Buffer, credential: Pick<AdminCredential, 'account' | 'tokenHash'>): string {
  return hmacOf(key, macParts(credential.account, credential.tokenHash));
}

/** stillAdmin for a session that keeps only credentialMac: the account's current token must be the one it was opened with. */
export async function stillAdminByMac(
  accounts: ServiceAccountDirectory,
  key: Buffer,
  held: HeldCredential,
): Promise<boolean> {
  for (const current of await accounts.currentTokenHashes(held.account)) {
    if (hmacMatches(key, macParts(held.account, current), held.tokenMac))
      return stillAdmin(accounts, { account: held.account, tokenHash: current });
  }
  return false;
}

function macParts(account: string, hash: string): string[] {
  return ['console-admin-token', account, hash];
}
