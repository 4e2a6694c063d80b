// Who may use the codec server: an operator holding an admin credential.
//  - `Authorization: Bearer <token>`: an admin-scope service account token or
//    FLOWHOOK_ADMIN_TOKEN (the CLI's --codec-auth, a UI that passes tokens), or
//    an OAuth access token of the configured operator group.
//  - the session cookie the login page sets — only on a request whose Origin
//    is an allowed one, so no other page can ride on the operator's cookie.
// Every path answers "an operator" or "nobody"; why a credential failed is
// not the caller's business (and never includes the credential).
import { BOOTSTRAP_ADMIN, type ServiceAccountDirectory } from '../rpc/service-account-directory.ts';
import { looksLikeServiceAccountToken, tokenHash } from '../security/service-account-tokens.ts';
import type { OriginVerdict } from './codec-cors.ts';
import { looksLikeJwt, type OperatorTokenVerifier } from './codec-oauth.ts';
import type { CodecOperator, CodecSessions, SessionCredential } from './codec-sessions.ts';

export const SESSION_COOKIE = 'flowhook_codec_session';

export interface CodecAuthDeps {
  accounts: ServiceAccountDirectory;
  sessions: CodecSessions;
  oauth?: OperatorTokenVerifier;
}

export interface OperatorCredentials {
  authorization?: string;
  cookie?: string;
  origin: OriginVerdict;
}

export async function authenticateOperator(request: OperatorCredentials, deps: CodecAuthDeps): Promise<CodecOperator | undefined> {
  const token = bearerToken(request.authorization);
  if (token !== undefined) {
    const operator = await operatorOfToken(token, deps);
    if (operator) return operator;
  }
  // A UI that passes its own sign-in token and the cookie too: the cookie still counts.
  const sessionId = request.origin === 'allowed' ? cookieValue(request.cookie, SESSION_COOKIE) : undefined;
  if (sessionId === undefined) return undefined;
  const session = deps.sessions.find(sessionId);
  if (!session) return undefined;
  // A session lasts no longer than the token it was opened with: rotated (another engine's change
  // feed clears this one's cache at once), or its account disabled, deleted or demoted, it ends.
  if (session.credential !== undefined && !(await stillAdmin(deps.accounts, session.credential))) {
    deps.sessions.close(sessionId);
    return undefined;
  }
  return session.operator;
}

/** An admin credential as the login page takes it: a service account token or FLOWHOOK_ADMIN_TOKEN (never an OAuth token: those expire on their own clock). */
export async function adminOfToken(token: string, accounts: ServiceAccountDirectory): Promise<{ operator: CodecOperator; credential?: SessionCredential } | undefined> {
  const found = await accounts.lookup(token);
  if (!('account' in found) || found.account.scope !== 'admin') return undefined;
  // The environment's bootstrap token has no account row to check again; a service account may be *named* bootstrap-admin, but its token has our shape.
  const bootstrap = found.account.name === BOOTSTRAP_ADMIN && !looksLikeServiceAccountToken(token);
  return { operator: { name: found.account.name, via: 'service-account' }, credential: bootstrap ? undefined : { account: found.account.name, tokenHash: tokenHash(token) } };
}

async function operatorOfToken(token: string, deps: CodecAuthDeps): Promise<CodecOperator | undefined> {
  if (deps.oauth && looksLikeJwt(token)) return deps.oauth(token);
  return (await adminOfToken(token, deps.accounts))?.operator;
}

async function stillAdmin(accounts: ServiceAccountDirectory, credential: SessionCredential): Promise<boolean> {
  const found = await accounts.lookupByTokenHash(credential.tokenHash);
  return 'account' in found && found.account.scope === 'admin' && found.account.name === credential.account;
}

export function bearerToken(authorization: string | undefined): string | undefined {
  return /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim() || undefined;
  }
  return undefined;
}
