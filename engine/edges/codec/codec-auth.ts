// Who may use the codec server: an operator holding an admin credential.
//  - `Authorization: Bearer <token>`: an admin-scope service account token or
//    FLOWHOOK_ADMIN_TOKEN (the CLI's --codec-auth, a UI that passes tokens), or
//    an OAuth access token of the configured operator group.
//  - the session cookie the login page sets — only on a request whose Origin
//    is an allowed one, so no other page can ride on the operator's cookie.
// Every path answers "an operator" or "nobody"; why a credential failed is
// not the caller's business (and never includes the credential).
import type { ServiceAccountDirectory } from '../../domain/callers/service-account-directory.ts';
import { adminCredentialOf, stillAdmin } from '../../domain/callers/admin-credentials.ts';
import type { BrowserCookie } from '../http/browser-sessions.ts';
import type { OriginVerdict } from './codec-cors.ts';
import { looksLikeJwt, type OperatorTokenVerifier } from './codec-oauth.ts';
import type { CodecOperator, CodecSessions, SessionCredential } from './codec-sessions.ts';

export const SESSION_COOKIE = 'flowhook_codec_session';

export interface CodecAuthDeps {
  accounts: ServiceAccountDirectory;
  sessions: CodecSessions;
  /** The session cookie (SESSION_COOKIE). */
  cookie: BrowserCookie;
  oauth?: OperatorTokenVerifier;
}

export interface OperatorCredentials {
  authorization?: string;
  cookie?: string;
  origin: OriginVerdict;
}

export async function authenticateOperator(
  request: OperatorCredentials,
  deps: CodecAuthDeps,
): Promise<CodecOperator | undefined> {
  const token = bearerToken(request.authorization);
  if (token !== undefined) {
    const operator = await operatorOfToken(token, deps);
    if (operator) return operator;
  }
  // A UI that passes its own sign-in token and the cookie too: the cookie still counts.
  const sessionId = request.origin === 'allowed' ? deps.cookie.valueIn(request.cookie) : undefined;
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
export async function adminOfToken(
  token: string,
  accounts: ServiceAccountDirectory,
): Promise<{ operator: CodecOperator; credential?: SessionCredential } | undefined> {
  const admin = await adminCredentialOf(token, accounts);
  if (!admin) return undefined;
  // The environment's bootstrap token changes only with a restart, which ends every (in-memory) codec session anyway.
  return {
    operator: { name: admin.account, via: 'service-account' },
    credential: admin.bootstrap ? undefined : { account: admin.account, tokenHash: admin.tokenHash },
  };
}

async function operatorOfToken(token: string, deps: CodecAuthDeps): Promise<CodecOperator | undefined> {
  if (deps.oauth && looksLikeJwt(token)) return deps.oauth(token);
  return (await adminOfToken(token, deps.accounts))?.operator;
}

export function bearerToken(authorization: string | undefined): string | undefined {
  return /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
}
