// Signing in to the console with OpenID Connect as a browser does, for tests
// that then call the console's RPCs as that person: the console's start URL,
// the identity provider (test/support/oidc-provider.ts), the callback, with
// the cookies each sets kept on the way, and the session's CSRF token from
// GetSession.
import { ConsolePage } from './console-page.ts';
import type { TestOidcProvider } from './oidc-provider.ts';

const SESSION_COOKIE = 'flowhook_console_session';

/** The engine settings of a console on `port` whose people sign in at `idp` (as the tests' provider registers the client). */
export function oidcConsoleEnv(port: number, idp: Pick<TestOidcProvider, 'issuer'>): Record<string, string> {
  return {
    FLOWHOOK_CONSOLE_PORT: String(port),
    FLOWHOOK_CONSOLE_OIDC_ISSUER: idp.issuer,
    FLOWHOOK_CONSOLE_OIDC_CLIENT_ID: 'flowhook-console',
    FLOWHOOK_CONSOLE_OIDC_SCOPES: 'openid,profile,flowhook',
  };
}

/** The console's page, signed in as `accountId` of the provider; fails when no session opens. */
export async function signInWithOidc(
  consoleUrl: string,
  idp: TestOidcProvider,
  accountId: string,
): Promise<ConsolePage> {
  idp.signInAs(accountId);
  const cookies = new Map<string, string>();
  let url = `${consoleUrl}/auth/oidc/start`;
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const index = pair.indexOf('=');
      const [name, value] = [pair.slice(0, index), pair.slice(index + 1)];
      if (value === '' || /max-age=0\b/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    const location = response.headers.get('location');
    await response.body?.cancel();
    if (response.status < 300 || response.status >= 400 || !location) break;
    url = new URL(location, url).toString();
  }
  const session = cookies.get(SESSION_COOKIE);
  if (!session) throw new Error(`no console session for ${accountId}: the sign-in ended at ${url}`);
  const page = new ConsolePage(consoleUrl);
  page.cookie = `${SESSION_COOKIE}=${session}`;
  page.csrf = (await page.call('flowhook.engine.v1.ConsoleService', 'GetSession')).json.csrfToken as string;
  return page;
}
