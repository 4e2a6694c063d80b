// Who may call what on the console's listener, over real HTTP against a real
// engine: the session (cookie set by signing in with an admin token), the CSRF
// header, the page's own origin, the roles per company, the end of a session
// when its admin token is rotated or its account disabled, and the audit log's
// person. The browser tests (console-browser.test.ts) drive the same calls
// through the pages.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { FlowSchema, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { ConsoleSessions } from '../../engine/edges/console/console-sessions.ts';
import { CONSOLE_CSP, CSP_NONCE_PLACEHOLDER } from '../../engine/edges/console/console-http.ts';
import { createServiceAccount } from '../../engine/domain/callers/service-accounts.ts';
import { ConsolePage } from '../support/console-page.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { createTenant, flow } from '../support/webhook-helpers.ts';
import { request } from 'node:http';

let stack: TestStack;
let consoleUrl: string;
const COMPANY = 'Console Co';
const OTHER = 'Other Co';

function greeting(company: string, name: string, activity: string): FlowJson {
  return flow(company, name, { activity }, [
    { respond: { description: 'Greet', statusCode: 200, contentType: 'text/plain', body: 'hello' } },
  ]);
}

test.before(async () => {
  stack = await startStack({ env: { FLOWHOOK_CONSOLE_PORT: '0' } });
  consoleUrl = stack.engine.console!.url;
  await createTenant(stack, COMPANY);
  await createTenant(stack, OTHER);
  await stack.admin.applyFlow({
    flow: fromJson(FlowSchema, greeting(COMPANY, 'greeter', 'console.greet') as never),
    publish: true,
  });
  await stack.admin.applyFlow({
    flow: fromJson(FlowSchema, greeting(OTHER, 'elsewhere', 'other.greet') as never),
    publish: true,
  });
});
test.after.always(async () => {
  await stack?.close();
});

/** A session of a person the identity provider gave these roles, opened the way the OIDC sign-in opens one. */
async function personWith(
  roles: Record<string, 'viewer' | 'editor' | 'admin'>,
  person = 'pat@example.com',
): Promise<ConsolePage> {
  const page = new ConsolePage(consoleUrl);
  const { cookieValue } = await new ConsoleSessions(stack.engine.orm, 60_000).open({
    person,
    via: 'oidc',
    account: 'console-oidc',
    roles,
  });
  page.cookie = `flowhook_console_session=${cookieValue}`;
  const session = await page.call('flowhook.engine.v1.ConsoleService', 'GetSession');
  page.csrf = session.json.csrfToken as string;
  return page;
}

test('without a session every call but GetSession and SignIn is 401', async (t) => {
  const page = new ConsolePage(consoleUrl);
  const listed = await page.flowAdmin('ListFlows', { company: COMPANY });
  t.is(listed.status, 401, JSON.stringify(listed.json));
  t.is(listed.json.code, 'unauthenticated');
  const session = await page.call('flowhook.engine.v1.ConsoleService', 'GetSession');
  t.is(session.status, 200);
  t.is(session.json.person, undefined);
});

test('signing in with an admin token sets an HttpOnly SameSite=Strict cookie; a wrong token is 401 and sets none', async (t) => {
  const wrong = new ConsolePage(consoleUrl);
  const refused = await wrong.signIn('not-a-token-of-ours-at-all');
  t.is(refused.status, 401);
  t.is(refused.headers.getSetCookie().length, 0);

  const page = new ConsolePage(consoleUrl);
  const signedIn = await page.signIn(stack.adminToken);
  t.is(signedIn.status, 200, JSON.stringify(signedIn.json));
  const [cookie] = signedIn.headers.getSetCookie();
  t.regex(cookie!, /^flowhook_console_session=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Strict$/);
  t.is((signedIn.json.person as { name: string }).name, 'bootstrap-admin');
  t.false(JSON.stringify(signedIn.json).includes(stack.adminToken), 'the token is not sent back');
  const listed = await page.flowAdmin('ListFlows', { company: COMPANY });
  t.is(listed.status, 200, JSON.stringify(listed.json));
  t.deepEqual(
    (listed.json.flows as { name: string }[]).map((f) => f.name),
    ['greeter'],
  );

  const out = await page.call('flowhook.engine.v1.ConsoleService', 'SignOut');
  t.is(out.status, 200);
  t.is(page.cookie, undefined, 'sign-out clears the cookie');
  page.cookie = cookie!.split(';')[0];
  t.is(
    (await page.flowAdmin('ListFlows', { company: COMPANY })).status,
    401,
    'the old cookie opens nothing after sign-out',
  );
});

test("a call without the CSRF token, or with another session's, is refused and changes nothing", async (t) => {
  const page = new ConsolePage(consoleUrl);
  await page.signIn(stack.adminToken);
  const other = new ConsolePage(consoleUrl);
  await other.signIn(stack.adminToken);
  const before = (await stack.admin.listFlowVersions({ company: COMPANY, name: 'greeter' })).versions.length;
  const change = { flow: { ...greeting(COMPANY, 'greeter', 'console.greet'), description: 'changed without a token' } };
  for (const csrf of [null, other.csrf!, 'x'.repeat(43)]) {
    const answer = await page.flowAdmin('ApplyFlow', change, { csrf });
    t.is(answer.status, 403, JSON.stringify(answer.json));
    t.regex(String(answer.json.message), /CSRF/);
  }
  t.is(
    (await stack.admin.listFlowVersions({ company: COMPANY, name: 'greeter' })).versions.length,
    before,
    'no version was written',
  );
  t.is((await page.flowAdmin('ApplyFlow', change)).status, 200, 'with the token it goes through');
});

test('requests from another origin, another site or another host name are refused, and nothing answers with CORS headers', async (t) => {
  const page = new ConsolePage(consoleUrl);
  await page.signIn(stack.adminToken);
  const evil = 'http://attacker.example';
  const crossOrigin = await page.flowAdmin(
    'ListFlows',
    { company: COMPANY },
    { origin: evil, secFetchSite: 'cross-site' },
  );
  t.is(crossOrigin.status, 403);
  t.is(crossOrigin.headers.get('access-control-allow-origin'), null);
  t.is(
    (await page.flowAdmin('ListFlows', { company: COMPANY }, { origin: null })).status,
    403,
    'no Origin: not from our page',
  );
  t.is((await page.flowAdmin('ListFlows', { company: COMPANY }, { secFetchSite: 'same-site' })).status, 403);
  // A name an attacker points at 127.0.0.1 (DNS rebinding): its pages are same-origin with themselves, not with us.
  const port = new URL(consoleUrl).port;
  const rebound = await statusWithHost(
    `${consoleUrl}/flowhook.engine.v1.ConsoleService/GetSession`,
    `attacker.example:${port}`,
    {
      method: 'POST',
      origin: `http://attacker.example:${port}`,
    },
  );
  t.is(rebound, 403);
  const signIn = await new ConsolePage(consoleUrl).call(
    'flowhook.engine.v1.ConsoleService',
    'SignIn',
    { adminToken: stack.adminToken },
    { origin: evil },
  );
  t.is(signIn.status, 403, 'another site cannot sign the browser in (login CSRF)');
  t.is(signIn.headers.getSetCookie().length, 0);
});

test('a viewer reads but cannot publish, apply or rotate; nobody sees a company they have no role in', async (t) => {
  const viewer = await personWith({ [COMPANY]: 'viewer' });
  t.is((await viewer.flowAdmin('GetFlow', { company: COMPANY, name: 'greeter' })).status, 200);
  const companies = await viewer.flowAdmin('ListCompanies');
  t.deepEqual(
    (companies.json.companies as { name: string }[]).map((c) => c.name),
    [COMPANY],
    'the listing is cut to their companies',
  );
  for (const [method, body] of [
    ['PublishFlow', { company: COMPANY, name: 'greeter' }],
    ['UnpublishFlow', { company: COMPANY, name: 'greeter' }],
    ['RotateSecret', { company: COMPANY, name: 'greeter' }],
    ['ApplyFlow', { flow: greeting(COMPANY, 'greeter', 'console.greet') }],
  ] as const) {
    const answer = await viewer.flowAdmin(method, body);
    t.is(answer.status, 403, `${method}: ${JSON.stringify(answer.json)}`);
    t.regex(String(answer.json.message), /editor role in company "Console Co"/);
  }
  const elsewhere = await viewer.flowAdmin('GetFlow', { company: OTHER, name: 'elsewhere' });
  t.is(elsewhere.status, 403);
  t.is(
    (await viewer.flowAdmin('ListFlows', { company: '' })).status,
    403,
    'all companies at once needs a role in every company',
  );
  t.is((await viewer.flowAdmin('CreateCompany', { name: 'Viewer Co' })).status, 403);

  const editor = await personWith({ [COMPANY]: 'editor', [OTHER]: 'viewer' });
  const published = await editor.flowAdmin('PublishFlow', { company: COMPANY, name: 'greeter' });
  t.is(published.status, 200, JSON.stringify(published.json));
  t.is((await editor.flowAdmin('PublishFlow', { company: OTHER, name: 'elsewhere' })).status, 403);
  t.is((await editor.flowAdmin('CreateCompany', { name: 'Editor Co' })).status, 403, 'companies are for admins');
});

test('a re-run needs the editor role in the company it names; services the console does not serve are not there', async (t) => {
  const rerun = (page: ConsolePage, company?: string) =>
    page.call('flowhook.engine.v1.ExecutionService', 'RerunExecution', { executionId: 'x:y', company });
  const viewer = await personWith({ [COMPANY]: 'viewer' }, 'rerun-viewer@example.com');
  t.is((await rerun(viewer, COMPANY)).status, 403);
  const editor = await personWith({ [COMPANY]: 'editor' }, 'rerun-editor@example.com');
  t.is((await rerun(editor)).status, 403, 'without a company the role is needed in every company');
  const unknown = await rerun(editor, COMPANY);
  t.is(unknown.status, 404, JSON.stringify(unknown.json));
  const page = new ConsolePage(consoleUrl);
  await page.signIn(stack.adminToken);
  const notServed = await page.call('flowhook.engine.v1.SecretStoreAdminService', 'RotateKey');
  t.is(notServed.status, 404, 'services the console does not serve are not there');
});

test('a session ends when its admin token is rotated, or its account disabled', async (t) => {
  const account = await createServiceAccount(stack.engine.orm.em.fork(), stack.engine.changes, {
    name: 'console-person',
    scope: 'admin',
    companies: [],
    allCompanies: false,
    forwardsCallers: false,
  });
  const page = new ConsolePage(consoleUrl);
  t.is((await page.signIn(account.token)).status, 200);
  t.is((await page.flowAdmin('ListCompanies')).status, 200);
  await stack.admin.rotateServiceAccountToken({ name: 'console-person' });
  const afterRotation = await page.flowAdmin('ListCompanies');
  t.is(afterRotation.status, 401, JSON.stringify(afterRotation.json));
  t.is((await page.call('flowhook.engine.v1.ConsoleService', 'GetSession')).json.person, undefined);
  t.is(page.cookie, undefined, 'GetSession clears the cookie of an ended session');

  const rotated = (await stack.admin.rotateServiceAccountToken({ name: 'console-person' })).token;
  t.is((await page.signIn(rotated)).status, 200);
  await stack.admin.setServiceAccountState({ name: 'console-person', enabled: false });
  t.is((await page.flowAdmin('ListCompanies')).status, 401);
  await stack.admin.setServiceAccountState({ name: 'console-person', enabled: true });
  t.is(
    (await page.flowAdmin('ListCompanies')).status,
    401,
    'enabling the account again does not bring the ended session back',
  );
});

test('changes made in the console are in the audit log with the person', async (t) => {
  const editor = await personWith({ [COMPANY]: 'editor' }, 'ed@example.com');
  const rotated = await editor.flowAdmin('RotateSecret', { company: COMPANY, name: 'greeter' });
  t.is(rotated.status, 200, JSON.stringify(rotated.json));
  const viewer = await personWith({ [COMPANY]: 'viewer' }, 'vi@example.com');
  await viewer.flowAdmin('UnpublishFlow', { company: COMPANY, name: 'greeter' });
  const audit = new ConsolePage(consoleUrl);
  await audit.signIn(stack.adminToken);
  const events = (await audit.call('flowhook.engine.v1.AuditService', 'ListAuditEvents', { company: COMPANY })).json
    .events as Record<string, string>[];
  const byEd = events.filter((event) => event.person === 'ed@example.com');
  t.like(
    byEd.find((event) => event.action === 'webhook-secret.rotate'),
    { account: 'console-oidc', outcome: 'ok', detailsJson: '{"name":"greeter"}' },
  );
  t.like(
    events.find((event) => event.person === 'vi@example.com'),
    { action: 'flow.unpublish', outcome: 'permission_denied' },
    'a refused attempt is on record too',
  );
  t.false(JSON.stringify(events).includes((rotated.json as { secret: string }).secret), 'never the secret');
});

test('the pages carry a strict Content-Security-Policy and no CORS headers', async (t) => {
  const response = await fetch(`${consoleUrl}/flows/Default`, { headers: { origin: 'http://attacker.example' } });
  const csp = response.headers.get('content-security-policy') ?? '';
  // A built page has its own style nonce (the code editor's styles); without a build, the page that says so has none.
  t.regex(csp, /^default-src 'self'; script-src 'self'; style-src 'self'( 'nonce-[A-Za-z0-9+/]{22}==')?; /);
  t.notRegex(csp, /unsafe-inline|unsafe-eval/);
  t.regex(CONSOLE_CSP, /frame-ancestors 'none'/);
  if (response.status === 200) {
    // Each page its own nonce, the same in the header and in the page (where the code editor reads it).
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    const html = await response.text();
    t.true(html.includes(`nonce="${nonce}"`), html);
    t.false(html.includes(CSP_NONCE_PLACEHOLDER));
    const again = (await fetch(`${consoleUrl}/`)).headers.get('content-security-policy');
    t.not(/'nonce-([^']+)'/.exec(again ?? '')?.[1], nonce);
  }
  t.is(response.headers.get('x-frame-options'), 'DENY');
  t.is(response.headers.get('access-control-allow-origin'), null);
  t.is(await statusWithHost(`${consoleUrl}/`, 'attacker.example'), 421, 'another host name gets no page');
});

/** fetch sends the URL's host whatever one asks: node:http sends the Host header given. */
function statusWithHost(
  url: string,
  host: string,
  options: { method?: string; origin?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      host,
      'content-type': 'application/json',
      'sec-fetch-site': 'same-origin',
    };
    if (options.origin) headers.origin = options.origin;
    const outgoing = request(url, { method: options.method ?? 'GET', headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on('error', reject);
    outgoing.end(options.method === 'POST' ? '{}' : undefined);
  });
}
