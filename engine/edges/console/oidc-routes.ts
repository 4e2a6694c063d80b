// The browser's side of an OpenID Connect sign-in (console-oidc.ts):
//   GET /auth/oidc/start     remembers this login (state, nonce, PKCE verifier) in a
//                            ten-minute cookie and sends the browser to the identity provider
//   GET /auth/oidc/callback  where the identity provider sends it back: the code is
//                            exchanged, the ID token verified, a console session opened
//                            (keeping the provider's refresh token, sealed, when it gave one)
// The login cookie is SameSite=Lax, not Strict: the identity provider's
// redirect back is a navigation from another site, which carries Lax cookies
// only. It holds nothing that signs anyone in; the session cookie set at the
// end is Strict like every session cookie.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { browserCookie, type BrowserCookie } from '../http/browser-sessions.ts';
import type { LoginState } from '../http/oidc-provider.ts';
import { plainPage, sendHtml } from './console-http.ts';
import { OidcSignInError, type OidcClient } from './console-oidc.ts';
import { ownOrigin, type ConsoleSite } from './console-request-checks.ts';
import { OIDC_ACCOUNT, type ConsoleSessions } from './console-sessions.ts';
import type { SessionRecheck } from './session-recheck.ts';

export const OIDC_START_PATH = '/auth/oidc/start';
export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';
const LOGIN_TTL_MS = 600_000;

export interface OidcRouteDeps {
  client: OidcClient;
  /** Seals the refresh token the new session keeps to re-read the roles. */
  recheck: SessionRecheck;
  site: ConsoleSite;
  sessions: ConsoleSessions;
  cookie: BrowserCookie;
  secure: boolean;
  headers: Record<string, string>;
  logger: Logger;
}

export async function oidcRoute(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  deps: OidcRouteDeps,
): Promise<void> {
  const origin = ownOrigin(deps.site, req.headers.host);
  if (origin === undefined)
    return problem(res, deps, new OidcSignInError(400, 'The console answers its own address only.'));
  const redirectUri = `${origin}${OIDC_CALLBACK_PATH}`;
  const loginCookie = browserCookie(
    deps.secure ? '__Host-flowhook-console-login' : 'flowhook_console_login',
    deps.secure,
    'Lax',
  );
  try {
    if (path === OIDC_START_PATH) {
      const { url, login } = await deps.client.begin(redirectUri);
      res.writeHead(303, {
        ...deps.headers,
        location: url,
        'cache-control': 'no-store',
        'set-cookie': loginCookie.set(encodeLogin(login), LOGIN_TTL_MS),
      });
      res.end();
      return;
    }
    const query = new URL(req.url ?? '/', origin).searchParams;
    const person = await deps.client.finish(query, decodeLogin(loginCookie.valueIn(req.headers.cookie)), redirectUri);
    const { cookieValue: session, session: opened } = await deps.sessions.open(
      { person: person.name, via: 'oidc', account: OIDC_ACCOUNT, roles: person.grants },
      (key) => deps.recheck.seal(key, person),
    );
    deps.logger.info(
      { person: person.name, via: 'oidc', companies: Object.keys(person.grants).length, rechecked: opened.rechecks },
      'console: signed in',
    );
    res.writeHead(303, {
      ...deps.headers,
      location: '/',
      'cache-control': 'no-store',
      'set-cookie': [deps.cookie.set(session, deps.sessions.ttlMs), loginCookie.clear()],
    });
    res.end();
  } catch (error) {
    if (error instanceof OidcSignInError) return problem(res, deps, error);
    deps.logger.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      'console: OpenID Connect sign-in failed',
    );
    problem(
      res,
      deps,
      new OidcSignInError(
        502,
        `The identity provider (${deps.client.issuer}) could not be reached. Try again, or sign in with an admin token.`,
      ),
    );
  }
}

function problem(res: ServerResponse, deps: OidcRouteDeps, error: OidcSignInError): void {
  deps.logger.warn({ reason: error.message }, 'console: sign-in refused');
  sendHtml(
    res,
    error.status,
    plainPage('Not signed in', error.message, { href: '/', text: 'Back to the sign-in page' }),
    deps.headers,
  );
}

function encodeLogin(login: LoginState): string {
  return Buffer.from(JSON.stringify(login)).toString('base64url');
}

function decodeLogin(value: string | undefined): LoginState | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<LoginState>;
    return typeof parsed.state === 'string' && typeof parsed.nonce === 'string' && typeof parsed.verifier === 'string'
      ? (parsed as LoginState)
      : undefined;
  } catch {
    return undefined;
  }
}
