// Getting the answer after a timeout, end to end: a sync call whose flow
// responds only after the window closed gets the default response and the
// execution id; the caller then fetches the late answer with
// GET flowWebhook_Answer(executionId='…') — at once (202 while nothing is
// answered), by long-poll (?wait=) and after the execution closed — and only
// the same caller, or one with FLOW ALL in that company, gets it.
import test from 'ava';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ExecutionState, WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { AppState } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { accessAdmin } from '../support/access-admin.ts';
import { startAuthorizationServer, type TestAuthorizationServer, type TestClient } from '../support/oauth-provider.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { fetchAnswer, type FetchedAnswer } from '../support/answer-helpers.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let target: TargetServer;
const secrets: Record<string, string> = {};
const OTHER_COMPANY = 'Other Co';
const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;
const users: Record<'colleague' | 'outsider', string> = { colleague: '', outsider: '' };
const API = 'api://flowhook-test';
// Two applications with FLOW INTEGR. (the set that lets an application run flows, not FLOW ALL): each sees only its own executions.
const portal: TestClient = {
  clientId: `portal-${Math.random().toString(36).slice(2, 8)}`,
  clientSecret: `portal-secret-${'s'.repeat(24)}`,
};
const partner: TestClient = {
  clientId: `partner-${Math.random().toString(36).slice(2, 8)}`,
  clientSecret: `partner-secret-${'s'.repeat(24)}`,
};
let idp: TestAuthorizationServer;

// The upstream answers after 3 s: past the 1 s sync window, well inside a 10 s wait.
const slow = (path: string) => ({
  httpRequest: { description: 'Slow upstream', url: `${target.url}/slow/${path}`, method: 'POST', timeout: '10s' },
});
const sync = (activity: string, extra: Record<string, unknown> = {}) => ({
  activity,
  responseMode: 'WAIT_FOR_RESPONSE_STEP',
  syncTimeoutSeconds: 1,
  defaultResponseStatusCode: 202,
  defaultResponseContentType: 'text/plain',
  ...extra,
});

test.before(async () => {
  idp = await startAuthorizationServer({ clients: [portal, partner], resources: [API] });
  stack = await startStack({ env: { FLOWHOOK_OAUTH_ISSUERS: idp.issuer, FLOWHOOK_OAUTH_AUDIENCE: API } });
  target = await startTargetServer((request) => ({ delayMs: request.path.startsWith('/slow') ? 3000 : 0 }));
  tenant = await createTenant(stack);
  await stack.admin.createCompany({ name: OTHER_COMPANY });
  const user = async (name: string, company: string, permissionSet: string) =>
    basic(name, (await stack.admin.createUser({ name, company, permissionSet })).accessKey);
  users.colleague = await user('colleague', tenant.company, 'FLOW ALL');
  for (const app of [portal, partner]) {
    await accessAdmin(stack).apps.registerApp({
      clientId: app.clientId,
      issuer: idp.issuer,
      company: tenant.company,
      permissionSet: 'FLOW INTEGR.',
      consentGranted: true,
      state: AppState.ENABLED,
      description: 'test app',
    });
  }
  users.outsider = await user('outsider', OTHER_COMPANY, 'FLOW ALL');
  const flows: Record<string, [Record<string, unknown>, unknown[]]> = {
    'late.answer': [
      sync('late.answer'),
      [
        slow('late'),
        {
          respond: {
            description: 'Late order confirmation',
            statusCode: 201,
            contentType: 'application/json',
            body: '${ {"order": Trigger.Payload.ref, "status": "confirmed"} }',
          },
        },
      ],
    ],
    'never.responds': [sync('never.responds'), [slow('never'), { log: { description: 'Done', message: 'no answer' } }]],
    'fails.late': [
      sync('fails.late'),
      [slow('fails'), { fail: { description: 'Upstream said no', message: 'refused' } }],
    ],
    'answers.then.fails': [
      sync('answers.then.fails', { syncTimeoutSeconds: 10 }),
      [
        { respond: { description: 'Accepted', statusCode: 200, contentType: 'text/plain', body: 'accepted' } },
        { fail: { description: 'Later trouble', message: 'broken later' } },
      ],
    ],
    'in.time': [
      sync('in.time', { syncTimeoutSeconds: 10 }),
      [{ respond: { description: 'At once', statusCode: 200, contentType: 'text/plain', body: 'in time' } }],
    ],
    'instant.flow': [
      { activity: 'instant.flow', defaultResponseStatusCode: 202, defaultResponseContentType: 'text/plain' },
      [{ log: { description: 'Background work', message: 'done' } }],
    ],
    'hidden.late': [
      sync('hidden.late', { doNotLogPayload: true }),
      [
        slow('hidden'),
        {
          respond: {
            description: 'Echo the card',
            statusCode: 200,
            contentType: 'application/json',
            body: '${ {"card": Trigger.Payload.card} }',
          },
        },
      ],
    ],
  };
  for (const [activity, [webhook, steps]] of Object.entries(flows)) {
    secrets[activity] = (
      await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), webhook, steps))
    ).secret;
  }
});
test.after.always(async () => {
  await stack?.close();
  await target?.close();
  await idp?.close();
});

const post = (activity: string, payloadText = '{"ref": "SO-4711"}') =>
  callWebhook(stack, { company: tenant.company, activity, secret: secrets[activity]!, auth: tenant.auth, payloadText });
const get = (executionId: string, options: { wait?: number | string; auth?: string; company?: string } = {}) =>
  fetchAnswer(stack.facadeUrl, {
    company: options.company ?? tenant.company,
    executionId,
    auth: options.auth ?? tenant.auth,
    wait: options.wait,
  });
const headersOf = (answer: FetchedAnswer) => ({
  state: answer.headers.get('x-flowhook-execution-state'),
  source: answer.headers.get('x-flowhook-answer-source'),
  outcome: answer.headers.get('x-flowhook-outcome'),
});

test('a respond step after the sync timeout: 202 while running, the late answer by long-poll, and again after the flow closed', async (t) => {
  const call = await post('late.answer');
  t.is(call.status, 200);
  t.deepEqual(call.value, { statusCode: 202, contentType: 'text/plain', body: '' });
  t.is(call.headers.get('x-flowhook-outcome'), 'sync-timeout');
  const executionId = call.executionId!;
  t.truthy(executionId);

  const running = await get(executionId);
  t.is(running.status, 202);
  t.deepEqual(headersOf(running), { state: 'running', source: null, outcome: 'sync-timeout' });
  t.is(running.headers.get('retry-after'), '1');
  t.deepEqual(JSON.parse(running.text), { executionId, state: 'running' });

  const late = await get(executionId, { wait: 10 });
  t.is(late.status, 200, late.text);
  t.true(late.ms < 9000, `the long-poll ended when the flow answered (${late.ms} ms)`);
  t.is(late.headers.get('x-flowhook-execution-id'), executionId);
  t.is(late.headers.get('odata-version'), '4.0');
  t.regex(late.headers.get('content-type') ?? '', /^application\/json; odata\.metadata=minimal/);
  t.is(JSON.parse(late.text)['@odata.context'], 'https://hooks.example.test/BC/ODataV4/$metadata#Edm.String');
  t.is(late.value!.statusCode, 201);
  t.is(late.value!.contentType, 'application/json');
  t.deepEqual(JSON.parse(late.value!.body), { order: 'SO-4711', status: 'confirmed' });
  t.is(headersOf(late).source, 'late-respond-step');

  await stack.temporal.workflow.getHandle(executionId).result();
  const closed = await get(executionId);
  t.is(closed.status, 200);
  t.deepEqual(closed.value, late.value);
  t.deepEqual(headersOf(closed), { state: 'completed', source: 'late-respond-step', outcome: 'sync-timeout' });
});

test('only the same caller, or a caller with FLOW ALL in that company, gets the answer; everyone else 404', async (t) => {
  const call = await post('in.time');
  t.is(call.value?.body, 'in time');
  const executionId = call.executionId!;

  const own = await get(executionId);
  t.is(own.status, 200);
  t.is(own.value!.body, 'in time');
  t.is(headersOf(own).source, 'respond-step');
  t.is(
    (await get(executionId, { auth: users.colleague })).status,
    200,
    'FLOW ALL in the company sees all its executions',
  );

  const refused = [
    await get(executionId, { auth: `Bearer ${await idp.token(partner)}` }),
    await get(executionId, { auth: users.outsider }),
    await get(executionId, { company: OTHER_COMPANY }),
    await get(executionId, { company: 'No Such Company' }),
    await get(executionId.replace(/:[^:]+$/, ':0b4f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b')),
  ];
  for (const answer of refused) {
    t.is(answer.status, 404, answer.text);
    // One message for all of them: an answer must not tell "exists, not yours" from "unknown".
    t.is(JSON.parse(answer.text).error.code, 'NotFound');
    t.false(answer.text.includes('in time'));
  }
  t.is(
    new Set(refused.map((answer) => JSON.parse(answer.text).error.message.replace(/"[^"]*"/, '"…"'))).size,
    1,
    'the same message, the id aside',
  );

  const wrongKey = await get(executionId, { auth: basic(tenant.userName, `${tenant.accessKey}x`) });
  t.is(wrongKey.status, 401);
  t.is(wrongKey.text, 'Unauthorized');
  t.is((await get(executionId, { auth: '' })).status, 401);
});

test('an application fetches the answers of its own calls; another application gets 404, a user with FLOW ALL the answer', async (t) => {
  const bearer = async (app: TestClient) => `Bearer ${await idp.token(app)}`;
  const call = await callWebhook(stack, {
    company: tenant.company,
    activity: 'late.answer',
    secret: secrets['late.answer']!,
    auth: await bearer(portal),
    payloadText: '{"ref": "APP-1"}',
  });
  t.is(call.headers.get('x-flowhook-outcome'), 'sync-timeout');
  const own = await get(call.executionId!, { auth: await bearer(portal), wait: 10 });
  t.is(own.status, 200, own.text);
  t.deepEqual(JSON.parse(own.value!.body), { order: 'APP-1', status: 'confirmed' });
  t.is((await get(call.executionId!, { auth: await bearer(partner) })).status, 404);
  t.is((await get(call.executionId!, { auth: users.colleague })).status, 200);
  t.is((await get(call.executionId!, { auth: `Bearer ${'x'.repeat(40)}` })).status, 401);
});

test('malformed requests are 400: an id the engine never mints, a wait outside 0..60, a missing company', async (t) => {
  const call = await post('in.time');
  for (const wait of ['61', 'abc', '-1', '1.5'])
    t.is((await get(call.executionId!, { wait })).status, 400, `wait=${wait}`);
  t.is((await get('not-an-execution-id')).status, 400);
  const noCompany = await fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Answer(executionId='${call.executionId}')`, {
    headers: { authorization: tenant.auth },
  });
  t.is(noCompany.status, 400);
  const badLiteral = await fetch(
    `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Answer(id='${call.executionId}')?company=${encodeURIComponent(tenant.company)}`,
    {
      headers: { authorization: tenant.auth },
    },
  );
  t.is(badLiteral.status, 400);
  const post405 = await fetch(
    `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Answer(executionId='${call.executionId}')?company=x`,
    {
      method: 'POST',
      headers: { authorization: tenant.auth },
    },
  );
  t.is(post405.status, 405);
});

test('a flow that never responds: 202 while it runs, then the default response once it completed', async (t) => {
  const call = await post('never.responds');
  t.is(call.headers.get('x-flowhook-outcome'), 'sync-timeout');
  t.is((await get(call.executionId!)).status, 202);
  const done = await get(call.executionId!, { wait: 10 });
  t.is(done.status, 200, done.text);
  t.deepEqual(done.value, { statusCode: 202, contentType: 'text/plain', body: '' });
  t.deepEqual(headersOf(done), { state: 'completed', source: 'default-response', outcome: 'sync-timeout' });
});

test('an instant-return flow: its default response, as the caller got it', async (t) => {
  const call = await post('instant.flow');
  t.is(call.headers.get('x-flowhook-outcome'), 'instant-return');
  await stack.temporal.workflow.getHandle(call.executionId!).result();
  const answer = await get(call.executionId!);
  t.is(answer.status, 200);
  t.deepEqual(answer.value, { statusCode: 202, contentType: 'text/plain', body: '' });
  t.deepEqual(headersOf(answer), { state: 'completed', source: 'default-response', outcome: 'instant-return' });
});

test('a flow that fails after the window without responding: a 500 naming the execution, as the POST would have been', async (t) => {
  const call = await post('fails.late');
  t.is(call.status, 200);
  const failed = await get(call.executionId!, { wait: 10 });
  t.is(failed.status, 500, failed.text);
  const error = JSON.parse(failed.text).error;
  t.is(error.message, `The flow failed before it responded (execution ${call.executionId})`);
  t.false(failed.text.includes('refused'), 'the reason stays in the execution, like on the POST');
});

test('a flow that answered and failed afterwards: its answer stands, with the state failed', async (t) => {
  const call = await post('answers.then.fails');
  t.is(call.value?.body, 'accepted');
  await t.throwsAsync(stack.temporal.workflow.getHandle(call.executionId!).result());
  const answer = await get(call.executionId!);
  t.is(answer.status, 200, answer.text);
  t.is(answer.value!.body, 'accepted');
  t.deepEqual(headersOf(answer), { state: 'failed', source: 'respond-step', outcome: 'responded' });
});

test('doNotLogPayload: the late answer reaches the caller (decrypted in the engine) and is not in the clear in Temporal', async (t) => {
  const card = `4111-${Math.random().toString().slice(2, 10)}`;
  const call = await post('hidden.late', JSON.stringify({ card }));
  t.is(call.value?.body, '');
  const late = await get(call.executionId!, { wait: 10 });
  t.is(late.status, 200, late.text);
  t.deepEqual(JSON.parse(late.value!.body), { card });
  const history = JSON.stringify(await stack.temporal.workflow.getHandle(call.executionId!).fetchHistory());
  t.false(history.includes(card));
});

test('on the engine: an internal service account fetches the executions it started, not those of others', async (t) => {
  const internal = createClient(
    WebhookService,
    createGrpcTransport({
      baseUrl: stack.engineUrl,
      interceptors: [
        (next) => (request) => {
          request.header.set('authorization', `Bearer ${stack.tokens.internal}`);
          return next(request);
        },
      ],
    }),
  );
  const started = await internal.invoke({
    company: tenant.company,
    activity: 'late.answer',
    secret: secrets['late.answer']!,
    payloadJson: '{"ref": "SO-9"}',
  });
  t.true(started.defaultResponse);
  const running = await internal.getAnswer({ company: tenant.company, executionId: started.executionId });
  t.is(running.state, ExecutionState.RUNNING);
  t.false(running.answered);
  const late = await internal.getAnswer({ company: tenant.company, executionId: started.executionId, waitSeconds: 10 });
  t.true(late.answered);
  t.true(late.answeredAfterTimeout);
  t.deepEqual(JSON.parse(late.body), { order: 'SO-9', status: 'confirmed' });

  const others = await post('in.time');
  const refused = await t.throwsAsync(
    internal.getAnswer({ company: tenant.company, executionId: others.executionId! }),
    { instanceOf: ConnectError },
  );
  t.is(refused?.code, Code.NotFound);
  // Through the facade: a user with FLOW ALL in the company sees it, one without any set there does not.
  t.is(
    (await get(started.executionId, { auth: users.colleague })).status,
    200,
    'FLOW ALL sees every execution of the company',
  );
  t.is((await get(started.executionId, { auth: users.outsider })).status, 404);
});
