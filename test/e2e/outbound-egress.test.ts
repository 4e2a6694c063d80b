// The egress policy and redirects end to end (real worker, real Temporal):
// internal addresses are refused before any connection, FLOWHOOK_EGRESS_ALLOW
// opens exactly what it names, flowhook's own ports stay shut, every redirect
// hop is checked, and a cross-origin hop drops credentials and the body.
// Refusals fail the step once (non-retryable) and the caller's 500 never names
// the address.
import test, { type ExecutionContext } from 'ava';
import { createClient } from '@connectrpc/connect';
import { ConnectionAdminService } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';
import { startRouteServer, echo, json, redirectTo, type RouteServer } from '../support/outbound-servers.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import {
  callWebhook,
  createTenant,
  deployFlow,
  failureReasonOf,
  flow,
  type Tenant,
  type WebhookAnswer,
} from '../support/webhook-helpers.ts';

let allowed: RouteServer; // opened by FLOWHOOK_EGRESS_ALLOW=127.0.0.1:<port>
let internal: RouteServer; // never opened by address, only through the name "localhost" on the open stack
let open: { stack: TestStack; tenant: Tenant };
let closed: { stack: TestStack; tenant: Tenant };
let flows = 0;
/** Requests that reached the loopback server at paths only refused calls use (other tests reach it legitimately, concurrently). */
const refusedHits = () => internal.seen.filter((seen) => seen.path === '/x' || seen.path === '/stolen').length;

test.before(async () => {
  [allowed, internal] = await Promise.all([startRouteServer(), startRouteServer()]);
  const openStack = await startStack({ env: { FLOWHOOK_EGRESS_ALLOW: `127.0.0.1:${allowed.port},localhost` } });
  const closedStack = await startStack({ env: { FLOWHOOK_EGRESS_ALLOW: '' } });
  open = { stack: openStack, tenant: await createTenant(openStack, 'Open Co') };
  closed = { stack: closedStack, tenant: await createTenant(closedStack, 'Closed Co') };
});
test.after.always(async () => {
  await Promise.all([open?.stack.close(), closed?.stack.close(), allowed?.close(), internal?.close()]);
});

/** Publishes a sync flow that runs one httpRequest step and answers with its output. */
async function request(
  on: { stack: TestStack; tenant: Tenant },
  httpRequest: Record<string, unknown>,
): Promise<WebhookAnswer> {
  const n = ++flows;
  const activity = `outbound.${n}`;
  const definition = flow(
    on.tenant.company,
    `outbound-${n}`,
    { activity, responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 20 },
    [
      { name: 'call', httpRequest: { description: 'Call out', maxAttempts: 3, timeout: '5s', ...httpRequest } },
      { respond: { statusCode: 200, body: '${ $string(Steps.call) }' } },
    ],
  );
  const { secret } = await deployFlow(on.stack, definition);
  return callWebhook(on.stack, { company: on.tenant.company, activity, secret, auth: on.tenant.auth });
}

/** The step failed once, not retried, with a reason naming `rule`; the caller's 500 names neither address nor rule detail. */
async function assertRefused(
  t: ExecutionContext,
  on: { stack: TestStack },
  answer: WebhookAnswer,
  rule: RegExp,
  hidden: string[],
): Promise<void> {
  t.is(answer.status, 500, answer.text);
  const { callerMessage, reason } = await failureReasonOf(on.stack, answer);
  t.regex(reason, rule);
  t.regex(callerMessage, /steps\[0\] httpRequest "Call out" failed/);
  for (const text of hidden)
    t.false(callerMessage.includes(text), `the caller's message names ${text}: ${callerMessage}`);
  const executionId = /\(execution ([^)]+)\)/.exec(callerMessage)![1]!;
  const history = await on.stack.temporal.workflow.getHandle(executionId).fetchHistory();
  const started = history.events!.filter((event) => event.activityTaskStartedEventAttributes);
  t.is(started.length, 1, 'a refusal is not retried');
}

test('169.254.169.254, loopback by name and by every spelling are refused with the default policy', async (t) => {
  await assertRefused(
    t,
    closed,
    await request(closed, { url: 'http://169.254.169.254/latest/meta-data/' }),
    /169\.254\.169\.254 is a link-local address.*FLOWHOOK_EGRESS_ALLOW/,
    ['169.254'],
  );
  for (const url of [
    `http://localhost:${internal.port}/x`,
    `http://127.0.0.1:${internal.port}/x`,
    `http://[::ffff:127.0.0.1]:${internal.port}/x`,
    `http://[::1]:${internal.port}/x`,
    `http://0x7f000001:${internal.port}/x`,
    `http://127.1:${internal.port}/x`,
  ]) {
    await assertRefused(t, closed, await request(closed, { url }), /loopback.*FLOWHOOK_EGRESS_ALLOW/, [
      String(internal.port),
      '127.0.0.1',
    ]);
  }
  t.is(refusedHits(), 0, 'no refused request reached the loopback server');
});

test("FLOWHOOK_EGRESS_ALLOW opens exactly what it names, and never flowhook's own ports", async (t) => {
  allowed.route('/ok', json({ ok: true }));
  const ok = await request(open, { url: `${allowed.url}/ok` });
  t.is(ok.status, 200, ok.text);
  t.like(JSON.parse(ok.value!.body), { status: 200, json: { ok: true }, url: `${allowed.url}/ok`, redirects: 0 });

  // Same address, another port: not named.
  await assertRefused(
    t,
    open,
    await request(open, { url: `${internal.url}/x` }),
    /127\.0\.0\.1 is a loopback address/,
    [String(internal.port)],
  );
  t.is(refusedHits(), 0);
  // The name "localhost" is opened, so it reaches the other port…
  internal.route('/named', json({ named: true }));
  t.like(JSON.parse((await request(open, { url: `http://localhost:${internal.port}/named` })).value!.body), {
    json: { named: true },
  });
  // …but not the engine's port behind the same name.
  const enginePort = new URL(open.stack.engineUrl).port;
  await assertRefused(
    t,
    open,
    await request(open, {
      url: `http://localhost:${enginePort}/flowhook.engine.v1.FlowAdminService/ListCompanies`,
      method: 'POST',
    }),
    /flowhook's own engine port/,
    [enginePort],
  );
});

test('a redirect from an allowed host to loopback is refused and the loopback server is never hit', async (t) => {
  allowed.route('/to-loopback', redirectTo(`http://127.0.0.1:${internal.port}/stolen`));
  allowed.route('/to-metadata', redirectTo('http://169.254.169.254/latest/meta-data/iam/', 307));
  await assertRefused(
    t,
    open,
    await request(open, { url: `${allowed.url}/to-loopback` }),
    /127\.0\.0\.1 is a loopback address/,
    [String(internal.port)],
  );
  await assertRefused(
    t,
    open,
    await request(open, { url: `${allowed.url}/to-metadata`, method: 'POST', body: '{"a":1}' }),
    /link-local/,
    ['169.254'],
  );
  t.is(refusedHits(), 0);
});

test('more than five redirects fail the step', async (t) => {
  allowed.route('/loop', redirectTo('/loop'));
  await assertRefused(t, open, await request(open, { url: `${allowed.url}/loop` }), /more than 5 redirects/, []);
  t.is(allowed.seen.filter((seen) => seen.path === '/loop').length, 6);
});

test('a cross-origin hop drops Authorization, Cookie and Proxy-Authorization and the body; same-origin keeps them; 303 becomes GET', async (t) => {
  internal.route('/landing', echo);
  allowed.route('/landing', echo);
  allowed.route('/cross', redirectTo(`http://localhost:${internal.port}/landing`, 307));
  allowed.route('/same', redirectTo('/landing', 307));
  allowed.route('/see-other', redirectTo('/landing', 303));
  const headers = {
    Authorization: 'Bearer top-secret',
    Cookie: 'session=abc',
    'Proxy-Authorization': 'Basic eA==',
    'X-Trace': 'kept',
  };
  const step = { method: 'POST', headers, body: '{"order":1}' };

  const cross = JSON.parse((await request(open, { ...step, url: `${allowed.url}/cross` })).value!.body);
  t.is(cross.url, `http://localhost:${internal.port}/landing`);
  t.is(cross.redirects, 1);
  t.is(cross.json.method, 'POST');
  t.is(cross.json.body, '', 'the body stays with the origin it was meant for');
  t.is(cross.json.headers.authorization, undefined);
  t.is(cross.json.headers.cookie, undefined);
  t.is(cross.json.headers['proxy-authorization'], undefined);
  t.is(cross.json.headers['x-trace'], 'kept');

  const same = JSON.parse((await request(open, { ...step, url: `${allowed.url}/same` })).value!.body);
  t.like(same.json, { method: 'POST', body: '{"order":1}' });
  t.is(same.json.headers.authorization, 'Bearer top-secret');

  const seeOther = JSON.parse((await request(open, { ...step, url: `${allowed.url}/see-other` })).value!.body);
  t.like(seeOther.json, { method: 'GET', body: '' });
});

test('a header value HTTP cannot carry fails the step without quoting it', async (t) => {
  const answer = await request(open, { url: `${allowed.url}/ok`, headers: { 'X-Bad': 'line1\nsecret-line2' } });
  const { reason, callerMessage } = await failureReasonOf(open.stack, answer);
  t.regex(reason, /header "x-bad" has a value HTTP cannot carry/);
  t.false(reason.includes('secret-line2'));
  t.false(callerMessage.includes('secret-line2'));
});

test('a company egress list narrows its flows further, and clearing it restores the operator policy', async (t) => {
  const narrow = { stack: open.stack, tenant: await createTenant(open.stack, 'Narrow Co') };
  const admin = createClient(
    ConnectionAdminService,
    createAdminTransport({ engineUrl: open.stack.engineUrl, adminToken: open.stack.adminToken }),
  );
  allowed.route('/narrow', json({ ok: true }));
  internal.route('/narrow', json({ ok: true }));
  await admin.setCompanyEgress({ company: 'Narrow Co', allow: ['localhost'] });
  // Opened by FLOWHOOK_EGRESS_ALLOW, but not on the company's list.
  await assertRefused(
    t,
    narrow,
    await request(narrow, { url: `${allowed.url}/narrow` }),
    /company "Narrow Co" egress list/,
    [String(allowed.port)],
  );
  t.is((await request(narrow, { url: `http://localhost:${internal.port}/narrow` })).status, 200);
  await admin.setCompanyEgress({ company: 'Narrow Co', clear: true });
  t.is((await request(narrow, { url: `${allowed.url}/narrow` })).status, 200);
});
