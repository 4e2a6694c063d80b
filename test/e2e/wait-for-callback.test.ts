// The waitForCallback step end to end (issue 15): a flow sends its one-time
// callback URL with an httpRequest, waits, and goes on with what the POST to
// that URL carried — through the real facade, engine, worker and Temporal.
// Also: a callback that comes before the wait starts, the timeout, a used URL
// (409, or the first answer again for a retried delivery), an expired or
// unknown token (404, nothing started), correlation by key through the
// authenticated flowWebhook_Resume action, the sync-mode deferral rule, and a
// doNotLogPayload flow whose callback body and token never reach the history.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { eventually } from '../support/eventually.ts';
import { historyText } from '../support/history-text.ts';
import { INSTANCE, PUBLIC_URL, startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let target: TargetServer;
const secrets: Record<string, string> = {};
const warnings: Record<string, string[]> = {};

const CALLBACK_URL = new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}/${INSTANCE}/callbacks/([A-Za-z0-9_-]{43})$`);
const instant = (activity: string, extra: Record<string, unknown> = {}) => ({
  activity,
  responseMode: 'INSTANT_RETURN',
  defaultResponseStatusCode: 200,
  ...extra,
});

/** The payment flow of the handbook (examples/flows/invoice-payment.flow.yaml): create the payment with the callback URL, wait, update the invoice. */
function paymentSteps(name: string, wait: Record<string, unknown>, between: unknown[] = []): unknown[] {
  return [
    {
      name: 'create',
      httpRequest: {
        description: 'Create the payment',
        method: 'POST',
        url: `${target.url}/payments/${name}/{{Execution.Id}}`,
        headers: { 'x-callback': '${Callbacks.payment.url}' },
        body: '{"invoice": "${Trigger.Payload.invoice}", "callbackUrl": "${Callbacks.payment.url}"}',
      },
    },
    ...between,
    { name: 'payment', waitForCallback: { description: 'Wait for the provider', ...wait } },
    {
      httpRequest: {
        description: 'Update the invoice',
        method: 'POST',
        url: `${target.url}/invoice/${name}/{{Execution.Id}}`,
        body: '${Steps.payment}',
      },
    },
  ];
}

test.before(async () => {
  stack = await startStack({ env: { FLOWHOOK_LOG_LEVEL: 'warn' } });
  tenant = await createTenant(stack, 'Callback Co');
  // Most payment providers echo the notify URL they were given: /payments/echo/… does.
  target = await startTargetServer((request) =>
    request.path.startsWith('/payments/echo/')
      ? {
          body: JSON.stringify({
            id: 'pay_1',
            notifyUrl: (JSON.parse(request.body) as { callbackUrl: string }).callbackUrl,
          }),
        }
      : {},
  );
  const flows: Record<string, { webhook: Record<string, unknown>; steps: unknown[] }> = {
    'pay.url': { webhook: instant('pay.url'), steps: paymentSteps('url', { timeout: '60s', responseStatus: 200 }) },
    'pay.early': {
      webhook: instant('pay.early'),
      steps: paymentSteps('early', { timeout: '60s' }, [{ sleep: { description: 'Settle', duration: '3s' } }]),
    },
    'pay.timeout': {
      webhook: instant('pay.timeout'),
      steps: paymentSteps('timeout', { timeout: '1s' }, []).concat([
        { sleep: { description: 'Stay running', duration: '30s' } },
      ]),
    },
    'pay.secret': {
      webhook: instant('pay.secret', { doNotLogPayload: true }),
      steps: paymentSteps('secret', { timeout: '60s' }),
    },
    'pay.echo': {
      webhook: instant('pay.echo'),
      steps: [
        ...paymentSteps('echo', { timeout: '60s' }).slice(0, 2),
        {
          httpRequest: {
            description: 'Report what the provider said',
            method: 'POST',
            url: `${target.url}/invoice/echo/{{Execution.Id}}`,
            body: '${ {"id": Steps.create.json.id, "callback": Steps.payment.body} }',
          },
        },
      ],
    },
    'pay.key': {
      webhook: instant('pay.key'),
      steps: [
        {
          name: 'order',
          waitForCallback: { description: 'Wait for the shipment', timeout: '60s', key: '${Trigger.Payload.orderId}' },
        },
        {
          httpRequest: {
            description: 'Report',
            method: 'POST',
            url: `${target.url}/shipped/{{Execution.Id}}`,
            body: '${Steps.order}',
          },
        },
      ],
    },
    'pay.sync': {
      webhook: { activity: 'pay.sync', responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 10 },
      steps: [{ name: 'early', waitForCallback: { timeout: '10s' } }, { respond: { statusCode: 200, body: 'never' } }],
    },
  };
  for (const [activity, { webhook, steps }] of Object.entries(flows)) {
    const deployed = await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), webhook, steps));
    secrets[activity] = deployed.secret;
    warnings[activity] = deployed.warnings;
  }
});
test.after.always(async () => {
  await stack?.close();
  await target?.close();
});

const call = (activity: string, payload: string) =>
  callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[activity]!,
    auth: tenant.auth,
    payloadText: payload,
  });

/** Starts the flow and returns its execution id and the callback URL its first step sent. */
async function startPayment(
  activity: string,
  name: string,
  invoice = 'INV-1',
): Promise<{ executionId: string; url: string; token: string }> {
  const answer = await call(activity, JSON.stringify({ invoice }));
  if (answer.status !== 200 || !answer.executionId) throw new Error(`call failed: ${answer.status} ${answer.text}`);
  const sent = await target.waitFor(`/payments/${name}/${answer.executionId}`);
  const url = (JSON.parse(sent.body) as { callbackUrl: string }).callbackUrl;
  if (sent.headers['x-callback'] !== url) throw new Error('the header and the body name different URLs');
  const token = CALLBACK_URL.exec(url)?.[1];
  if (!token) throw new Error(`not a callback URL: ${url}`);
  return { executionId: answer.executionId, url, token };
}

/** POSTs to the callback URL through the test's facade (the public URL names a host that does not exist). */
function postCallback(
  token: string,
  body: string,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Response> {
  return fetch(`${stack.facadeUrl}/${INSTANCE}/callbacks/${token}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: method === 'GET' ? undefined : body,
  });
}

interface CallbackOutput {
  received: boolean;
  timedOut: boolean;
  body: string;
  json?: Record<string, unknown>;
  headers: Record<string, string>;
}

async function outputSentTo(path: string): Promise<CallbackOutput> {
  return JSON.parse((await target.waitFor(path)).body) as CallbackOutput;
}

test('a payment flow sends its callback URL, waits, and goes on with the exact callback', async (t) => {
  const { executionId, token } = await startPayment('pay.url', 'url');
  const body = '{ "status" : "succeeded", "amount": 1.10 }';
  const answer = await postCallback(token, body, {
    'x-psp-signature': 'sig-1',
    authorization: 'Bearer not-for-the-flow',
  });
  t.is(answer.status, 200, 'the status the step sets');
  t.deepEqual(await answer.json(), { received: true });

  const output = await outputSentTo(`/invoice/url/${executionId}`);
  t.true(output.received);
  t.false(output.timedOut);
  t.is(output.body, body, 'the body exactly as sent');
  t.is(output.json?.status, 'succeeded');
  t.is(output.headers['x-psp-signature'], 'sig-1');
  t.false('authorization' in output.headers, 'credentials are not handed to the flow');
  await stack.temporal.workflow.getHandle(executionId).result();
  t.false((await historyText(executionId)).includes(token), 'the token never reaches the history');
});

test('a used URL: the same body again gets the first answer, another body 409', async (t) => {
  const { executionId, token } = await startPayment('pay.url', 'url', 'INV-2');
  const body = '{"status":"succeeded"}';
  t.is((await postCallback(token, body)).status, 200);
  await outputSentTo(`/invoice/url/${executionId}`);

  const retried = await postCallback(token, body);
  t.is(retried.status, 200, 'a retried delivery is answered as the first');
  t.is(retried.headers.get('x-flowhook-callback-repeated'), 'true');
  const other = await postCallback(token, '{"status":"failed"}');
  t.is(other.status, 409);
  t.regex(JSON.stringify(await other.json()), /already been used/);
});

test('a callback that arrives before the step waits is held and taken when the wait starts', async (t) => {
  const { executionId, token } = await startPayment('pay.early', 'early');
  // The flow sleeps 3 s between sending the URL and waiting.
  const answer = await postCallback(token, '{"status":"early"}');
  t.is(answer.status, 202, 'the default answer');
  const output = await outputSentTo(`/invoice/early/${executionId}`);
  t.true(output.received);
  t.is(output.json?.status, 'early');
  t.is((await postCallback(token, '{"status":"again"}')).status, 409);
});

test('the wait times out: the flow goes on with timedOut, and the URL is expired (404) while the execution still runs', async (t) => {
  const { executionId, token } = await startPayment('pay.timeout', 'timeout');
  const output = await outputSentTo(`/invoice/timeout/${executionId}`);
  t.false(output.received);
  t.true(output.timedOut);
  const late = await postCallback(token, '{"status":"late"}');
  t.is(late.status, 404);
  const description = await stack.temporal.workflow.getHandle(executionId).describe();
  t.is(description.status.name, 'RUNNING', 'expired with the step, not with the execution');
});

// Serial (ava runs serial tests first, alone): the count of executions in the task queue must not move.
test.serial('an unknown or malformed token is 404 with one message, other methods 405; nothing starts', async (t) => {
  const before = await executionsInQueue();
  const unknown = await postCallback(randomBytes(32).toString('base64url'), '{}');
  const malformed = await postCallback('not-a-token', '{}');
  t.is(unknown.status, 404);
  t.is(malformed.status, 404);
  t.deepEqual(await unknown.json(), await malformed.json());
  t.is((await postCallback(randomBytes(32).toString('base64url'), '', {}, 'GET')).status, 405);
  t.is(await executionsInQueue(), before);
});

async function executionsInQueue(): Promise<number> {
  let count = 0;
  for await (const _ of stack.temporal.workflow.list({ query: `TaskQueue = "${stack.taskQueue}"` })) count++;
  return count;
}

test('doNotLogPayload: the callback body and the token are not in the history in clear', async (t) => {
  const { executionId, token } = await startPayment('pay.secret', 'secret');
  const marker = `card-${randomBytes(6).toString('hex')}`;
  t.is((await postCallback(token, JSON.stringify({ status: 'succeeded', card: marker }))).status, 202);
  const output = await outputSentTo(`/invoice/secret/${executionId}`);
  t.is(output.json?.card, marker, 'the flow reads it');
  // The engine's client holds the payload key (the test's own client could not decode the result).
  await stack.engine.client.workflow.getHandle(executionId).result();
  const history = await historyText(executionId);
  t.false(history.includes(marker));
  t.false(history.includes(token));
});

test('a provider that echoes the callback URL: the activity result, and so the flow and its history, hold the placeholder', async (t) => {
  const { executionId, token } = await startPayment('pay.echo', 'echo');
  t.is((await postCallback(token, '{"status":"succeeded"}')).status, 202, 'the real URL the provider got still works');
  const report = JSON.parse((await target.waitFor(`/invoice/echo/${executionId}`)).body) as {
    id: string;
    callback: string;
  };
  t.deepEqual(report, { id: 'pay_1', callback: '{"status":"succeeded"}' });
  await stack.temporal.workflow.getHandle(executionId).result();
  const history = await historyText(executionId);
  t.false(history.includes(token), 'the token is nowhere in the history: not in the activity result either');
  t.regex(
    history,
    /notifyUrl\\*":\\*"flowhook-callback-[0-9a-f]+-payment/,
    'Steps.create.json.notifyUrl is the placeholder',
  );
});

/** flowWebhook_Resume: the caller's credentials and the flow's secret, as for the webhook call itself. */
function resume(
  activity: string,
  key: string,
  payload: unknown,
  overrides: { secret?: string; auth?: string } = {},
): Promise<Response> {
  return fetch(
    `${stack.facadeUrl}/${INSTANCE}/ODataV4/flowWebhook_Resume?company=${encodeURIComponent(tenant.company)}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: overrides.auth ?? tenant.auth },
      body: JSON.stringify({ activity, secret: overrides.secret ?? secrets[activity], key, payload }),
    },
  );
}

test('correlation by key: an authenticated flowWebhook_Resume resumes the execution that waits for it', async (t) => {
  const orderId = `ORD-${randomBytes(4).toString('hex')}`;
  const started = await call('pay.key', JSON.stringify({ orderId }));
  t.is(started.status, 200);
  // The key is registered when the step starts; until then no execution waits for it (404).
  const answer = await eventually(() => resume('pay.key', orderId, { carrier: 'DHL' }), {
    until: (response) => response.status !== 404,
    intervalMs: 200,
    what: 'the key registered',
    show: (response) => `${response.status}`,
  });
  t.is(answer.status, 202);
  t.is(answer.headers.get('x-flowhook-execution-id'), started.executionId);
  const output = await outputSentTo(`/shipped/${started.executionId}`);
  t.true(output.received);
  t.is(output.json?.carrier, 'DHL');

  t.is((await resume('pay.key', orderId, { carrier: 'UPS' })).status, 409, 'the step already has its callback');
  t.is((await resume('pay.key', 'ORD-unknown', {})).status, 404);
  t.is((await resume('pay.key', orderId, {}, { secret: 'wrong' })).status, 401);
  t.is((await resume('pay.key', orderId, {}, { auth: 'Basic bm9ib2R5Om5vdGhpbmc=' })).status, 401);
});

test('a wait before any respond step: publish warns, and the sync caller gets a 500', async (t) => {
  t.true(
    warnings['pay.sync']!.some((warning) => /steps\[0\]\.waitForCallback: a deferral/.test(warning)),
    warnings['pay.sync']!.join('\n'),
  );
  const answer = await call('pay.sync', '{}');
  t.is(answer.status, 500);
});

test('publishing refuses a URL read of a step that is not a URL wait', async (t) => {
  const steps = [
    { httpRequest: { url: `${target.url}/x`, body: '${Callbacks.nosuch.url}' } },
    { name: 'keyed', waitForCallback: { timeout: '1m', key: 'k' } },
  ];
  const error = await t.throwsAsync(
    deployFlow(stack, flow(tenant.company, 'bad-callback', instant('bad.callback'), steps)),
  );
  t.regex(error!.message, /Callbacks\.nosuch/);
});
