// Signing in to the console with OpenID Connect, end to end over HTTP: the
// console sends the browser to a real identity provider (oidc-provider) with
// an authorization code request and a PKCE challenge; back at the callback it
// exchanges the code, verifies the ID token and opens a session with the roles
// the token's claim lists, per company. A person with no role, or a callback
// that is not the one this browser started, gets no session. Once a session's
// roles are older than FLOWHOOK_CONSOLE_OIDC_RECHECK (two seconds here) they
// are read again with the provider's refresh token — once per session, however
// many calls and engines — and a person removed there, or left without a role,
// is signed out.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine, type RunningEngine } from '../../engine/main.ts';
import { ConsolePage } from '../support/console-page.ts';
import { oidcConsoleEnv } from '../support/oidc-sign-in.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { createTenant, flow } from '../support/webhook-helpers.ts';

let stack: TestStack;
let idp: TestOidcProvider;
let consoleUrl: string;
/** A second engine with its own console on the same PostgreSQL, as behind a load balancer. */
let otherEngine: RunningEngine;
const RECHECK_MS = 2000;
const COMPANY = 'OIDC Co';
const OTHER = 'Elsewhere Co';

test.before(async () => {
  const port = await findFreePort();
  consoleUrl = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({
    clientId: 'flowhook-console',
    redirectUri: `${consoleUrl}/auth/oidc/callback`,
    people: [
      { accountId: 'pat', name: 'pat@example.com', roles: [`editor:${COMPANY}`, `viewer:${OTHER}`] },
      { accountId: 'nora', name: 'nora@example.com', roles: ['owner'] },
      { accountId: 'riley', name: 'riley@example.com', roles: [`editor:${COMPANY}`] },
      { accountId: 'sam', name: 'sam@example.com', roles: [`viewer:${COMPANY}`] },
      { accountId: 'kim', name: 'kim@example.com', roles: [`viewer:${COMPANY}`] },
    ],
  });
  stack = await startStack({
    env: {
      ...oidcConsoleEnv(port, idp),
      FLOWHOOK_CONSOLE_OIDC_RECHECK: `${RECHECK_MS}ms`,
    },
  });
  otherEngine = await runEngine(
    readEngineConfig({ ...stack.env, FLOWHOOK_ENGINE_PORT: '0', FLOWHOOK_CONSOLE_PORT: '0' }),
  );
  for (const company of [COMPANY, OTHER]) {
    await createTenant(stack, company);
    await stack.admin.applyFlow({
      flow: fromJson(
        FlowSchema,
        flow(company, 'greeter', { activity: `greet.${company.split(' ')[0]!.toLowerCase()}` }, [
          { respond: { description: 'Greet', statusCode: 200 } },
        ]) as never,
      ),
      publish: true,
    });
  }
});
test.after.always(async () => {
  await otherEngine?.close();
  await stack?.close();
  await idp?.close();
});

/** A browser's cookie jar for one host (the console and the provider are both 127.0.0.1: cookies ignore the port). */
class Browser {
  readonly cookies = new Map<string, string>();

  /** Follows redirects as a browser does, keeping cookies; returns the last answer. */
  async navigate(
    url: string,
    until?: (url: string) => boolean,
  ): Promise<{ response: Response; url: string; hops: string[] }> {
    const hops: string[] = [];
    let current = url;
    for (let hop = 0; hop < 20; hop++) {
      hops.push(current);
      if (until?.(current)) return { response: new Response(null), url: current, hops };
      const response = await fetch(current, {
        redirect: 'manual',
        headers: { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const index = pair!.indexOf('=');
        const [name, value] = [pair!.slice(0, index), pair!.slice(index + 1)];
        if (value === '' || /max-age=0\b/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line))
          this.cookies.delete(name);
        else this.cookies.set(name, value);
      }
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { response, url: current, hops };
      current = new URL(location, current).toString();
    }
    throw new Error(`too many redirects: ${hops.join(' → ')}`);
  }

  /** The console's page (of this or another engine's console), with the session cookie this browser got. */
  page(url = consoleUrl): ConsolePage {
    const page = new ConsolePage(url);
    const session = this.cookies.get('flowhook_console_session');
    page.cookie = session ? `flowhook_console_session=${session}` : undefined;
    return page;
  }
}

test.serial(
  'a person signs in with the authorization code flow and PKCE, and gets the roles the ID token lists, per company',
  async (t) => {
    idp.signInAs('pat');
    const browser = new Browser();
    const { response, hops } = await browser.navigate(`${consoleUrl}/auth/oidc/start`);
    const authorization = new URL(hops[1]!);
    t.is(authorization.origin, idp.issuer);
    t.like(Object.fromEntries(authorization.searchParams), {
      response_type: 'code',
      client_id: 'flowhook-console',
      code_challenge_method: 'S256',
      redirect_uri: `${consoleUrl}/auth/oidc/callback`,
      scope: 'openid profile flowhook',
    });
    t.regex(authorization.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    t.regex(hops.at(-2) ?? '', /\/auth\/oidc\/callback\?code=/);
    t.is(new URL(hops.at(-1)!).pathname, '/', 'back to the console');
    t.is(response.status, 200);
    t.false(browser.cookies.has('flowhook_console_login'), 'the login cookie is gone');

    const page = browser.page();
    const session = await page.call('flowhook.engine.v1.ConsoleService', 'GetSession');
    t.like(session.json.person, { name: 'pat@example.com', via: 'SIGN_IN_METHOD_OIDC' });
    t.deepEqual((session.json.person as { roles: unknown[] }).roles, [
      { company: COMPANY, role: 'CONSOLE_ROLE_EDITOR' },
      { company: OTHER, role: 'CONSOLE_ROLE_VIEWER' },
    ]);
    page.csrf = session.json.csrfToken as string;
    t.is(
      (await page.flowAdmin('PublishFlow', { company: COMPANY, name: 'greeter' })).status,
      200,
      'an editor publishes in their company',
    );
    t.is(
      (await page.flowAdmin('GetFlow', { company: OTHER, name: 'greeter' })).status,
      200,
      'a viewer reads in theirs',
    );
    t.is(
      (await page.flowAdmin('PublishFlow', { company: OTHER, name: 'greeter' })).status,
      403,
      'but does not publish there',
    );
    const audit = await stack.engine.orm.em
      .getConnection()
      .execute<{ person: string; account: string }[]>(
        `select person, account from audit_event where action = 'flow.publish' and company = ?`,
        [COMPANY],
      );
    t.deepEqual(
      audit.map((row) => ({ ...row })),
      [{ person: 'pat@example.com', account: 'console-oidc' }],
    );
  },
);

test.serial('a person the identity provider gives no console role gets no session, and is told why', async (t) => {
  idp.signInAs('nora');
  const browser = new Browser();
  const { response } = await browser.navigate(`${consoleUrl}/auth/oidc/start`);
  t.is(response.status, 403);
  t.regex(
    await response.text(),
    /You are nora@example\.com at the identity provider, but it gives you no console role/,
  );
  t.false(browser.cookies.has('flowhook_console_session'));
});

test.serial('a callback this browser did not start (another state, or no login cookie) opens no session', async (t) => {
  idp.signInAs('pat');
  const browser = new Browser();
  const { url } = await browser.navigate(`${consoleUrl}/auth/oidc/start`, (next) =>
    next.startsWith(`${consoleUrl}/auth/oidc/callback`),
  );
  // The same code in another browser: no login cookie, so no state to match.
  const stranger = new Browser();
  const stolen = await stranger.navigate(url);
  t.is(stolen.response.status, 400);
  t.false(stranger.cookies.has('flowhook_console_session'));
  // This browser, with the state changed.
  const forged = new URL(url);
  forged.searchParams.set('state', 'another-state');
  t.is((await browser.navigate(forged.toString())).response.status, 400);
  t.false(browser.cookies.has('flowhook_console_session'));
  // And the real one still works once.
  t.is((await browser.navigate(url)).response.status, 200);
  t.true(browser.cookies.has('flowhook_console_session'));
});

/** Signs `accountId` in through the provider; the page holds the session and its CSRF token. */
async function signedIn(accountId: string): Promise<Browser> {
  idp.signInAs(accountId);
  const browser = new Browser();
  const { response } = await browser.navigate(`${consoleUrl}/auth/oidc/start`);
  if (response.status !== 200) throw new Error(`${accountId} was not signed in: ${response.status}`);
  return browser;
}

async function withCsrf(page: ConsolePage): Promise<ConsolePage> {
  page.csrf = (await page.call('flowhook.engine.v1.ConsoleService', 'GetSession')).json.csrfToken as string;
  return page;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test.serial(
  'roles older than FLOWHOOK_CONSOLE_OIDC_RECHECK are read again at the provider: a demotion there holds at the next call',
  async (t) => {
    const browser = await signedIn('riley');
    const page = await withCsrf(browser.page());
    t.is(
      (await page.flowAdmin('PublishFlow', { company: COMPANY, name: 'greeter' })).status,
      200,
      'an editor at sign-in',
    );
    const [row] = await stack.engine.orm.em
      .getConnection()
      .execute<{ provider_grant: string | null; token_mac: string | null }[]>(
        `select provider_grant, token_mac from console_session where person = 'riley@example.com'`,
      );
    t.regex(row!.provider_grant ?? '', /^fh1\./, 'the refresh token is kept sealed by the secret store');
    t.is(row!.token_mac, null);

    idp.setRoles('riley', [`viewer:${COMPANY}`]);
    t.is(
      (await page.flowAdmin('PublishFlow', { company: COMPANY, name: 'greeter' })).status,
      200,
      'within the interval the roles of the last check hold',
    );
    await pause(RECHECK_MS + 200);
    const before = idp.refreshes();
    const demoted = await page.flowAdmin('PublishFlow', { company: COMPANY, name: 'greeter' });
    t.is(demoted.status, 403, JSON.stringify(demoted.json));
    t.regex(String(demoted.json.message), /editor role in company "OIDC Co"/);
    t.is(
      (await page.flowAdmin('GetFlow', { company: COMPANY, name: 'greeter' })).status,
      200,
      'still a viewer: the session goes on',
    );
    const session = await page.call('flowhook.engine.v1.ConsoleService', 'GetSession');
    t.deepEqual((session.json.person as { roles: unknown[] }).roles, [
      { company: COMPANY, role: 'CONSOLE_ROLE_VIEWER' },
    ]);
    t.deepEqual(idp.refreshes(), { granted: before.granted + 1, refused: before.refused });
  },
);

test.serial(
  'many calls at once, through two engines, make one refresh at the provider (its rotated refresh token is never used twice)',
  async (t) => {
    const browser = await signedIn('riley');
    const pages = [await withCsrf(browser.page()), await withCsrf(browser.page(otherEngine.console!.url))];
    await pause(RECHECK_MS + 200);
    const before = idp.refreshes();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => pages[i % 2]!.flowAdmin('GetFlow', { company: COMPANY, name: 'greeter' })),
    );
    t.deepEqual(
      answers.map((answer) => answer.status),
      Array<number>(12).fill(200),
    );
    t.deepEqual(idp.refreshes(), { granted: before.granted + 1, refused: before.refused });
    // The next interval's check uses the rotated token: the provider grants it.
    await pause(RECHECK_MS + 200);
    t.is((await pages[1]!.flowAdmin('GetFlow', { company: COMPANY, name: 'greeter' })).status, 200);
    t.deepEqual(idp.refreshes(), { granted: before.granted + 2, refused: before.refused });
  },
);

test.serial(
  'a person removed at the provider, or left without a console role, is signed out at the next re-check',
  async (t) => {
    const removed = await withCsrf((await signedIn('sam')).page());
    const roleless = await withCsrf((await signedIn('kim')).page());
    t.is((await removed.flowAdmin('GetFlow', { company: COMPANY, name: 'greeter' })).status, 200);
    t.is((await roleless.flowAdmin('GetFlow', { company: COMPANY, name: 'greeter' })).status, 200);
    idp.removePerson('sam');
    idp.setRoles('kim', ['owner']);
    await pause(RECHECK_MS + 200);
    for (const page of [removed, roleless]) {
      const refused = await page.flowAdmin('GetFlow', { company: COMPANY, name: 'greeter' });
      t.is(refused.status, 401, JSON.stringify(refused.json));
      t.is((await page.call('flowhook.engine.v1.ConsoleService', 'GetSession')).json.person, undefined);
    }
    const left = await stack.engine.orm.em
      .getConnection()
      .execute<{ n: string }[]>(
        `select count(*) as n from console_session where person in ('sam@example.com', 'kim@example.com')`,
      );
    t.is(Number(left[0]!.n), 0, 'both sessions are gone');
  },
);

test.serial(
  'a provider that is down decides nothing at first: the session keeps its roles, until they are two intervals old',
  async (t) => {
    const page = await withCsrf((await signedIn('riley')).page());
    idp.setAvailable(false);
    try {
      await pause(RECHECK_MS + 200);
      t.is(
        (await page.flowAdmin('GetFlow', { company: COMPANY, name: 'greeter' })).status,
        200,
        'kept while the provider is down',
      );
      await pause(RECHECK_MS + 200);
      const ended = await page.flowAdmin('GetFlow', { company: COMPANY, name: 'greeter' });
      t.is(ended.status, 401, JSON.stringify(ended.json));
    } finally {
      idp.setAvailable(true);
    }
  },
);
