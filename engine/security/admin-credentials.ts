// An admin credential a person hands a sign-in page once (the codec server's
// /login, the console's "Admin token" field): an admin-scope service account
// token or FLOWHOOK_ADMIN_TOKEN. The session opened with it keeps the token's
// SHA-256 only, and stillAdmin asks the service account directory on every
// use: a rotated token, or its account disabled, deleted or demoted, ends the
// session at once (the change feed clears every engine's cache).
import { BOOTSTRAP_ADMIN, type ServiceAccountDirectory } from '../rpc/service-account-directory.ts';
import { looksLikeServiceAccountToken, tokenHash } from './service-account-tokens.ts';

/** The admin account a token belongs to, and the SHA-256 the directory knows it by (never the token). */
export interface AdminCredential {
  account: string;
  tokenHash: string;
  /** FLOWHOOK_ADMIN_TOKEN: no account row, it changes only with the engine's environment. */
  bootstrap: boolean;
}

/** The admin credential a token is, or undefined (an OAuth token is never one: those expire on their own clock). */
export async function adminCredentialOf(token: string, accounts: ServiceAccountDirectory): Promise<AdminCredential | undefined> {
  const found = await accounts.lookup(token);
  if (!('account' in found) || found.account.scope !== 'admin') return undefined;
  // A service account may be *named* bootstrap-admin, but its token has our shape.
  const bootstrap = found.account.name === BOOTSTRAP_ADMIN && !looksLikeServiceAccountToken(token);
  return { account: found.account.name, tokenHash: tokenHash(token), bootstrap };
}

/** Whether the credential still opens the admin services: same account, enabled, admin scope, token not rotated. */
export async function stillAdmin(accounts: ServiceAccountDirectory, credential: Pick<AdminCredential, 'account' | 'tokenHash'>): Promise<boolean> {
  const found = await accounts.lookupByTokenHash(credential.tokenHash);
  return 'account' in found && found.account.scope === 'admin' && found.account.name === credential.account;
}
