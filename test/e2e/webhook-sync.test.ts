// Wait for Response step end to end: the caller gets the respond step's
// answer, the default response on timeout or flow end, a 500 for a deferral
// before respond; the flow continues durably after the answer.
import test from 'ava';
import { WorkflowFailedError } from '@temporalio/client';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let target: TargetServer;
const secrets: Record<string, string> = {};
const sync = (activity: string, extra: Record<string, unknown> = {}) => ({
  activity,
  responseMode: 'WAIT_FOR_RESPONSE_STEP',
  syncTimeoutSeconds: 5,
  ...extra,
});

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  target = await startTargetServer((request) => ({ delayMs: request.path.startsWith('/slow') ? 3000 : 0 }));
  const flows = {
    'orders.import': [
      {
        name: 'check',
        set: {
          description: 'Validate the order',
          variables: { valid: '${ $exists(Trigger.Payload.lines) and $count(Trigger.Payload.lines) > 0 }' },
        },
      },
      {
        if: {
          description: 'Valid order?',
          condition: '${Variables.valid}',
          then: [
            {
              respond: {
                description: 'Created',
                statusCode: 201,
                contentType: 'application/json',
                body: '${ {"orderNumber": "SO-" & Trigger.Payload.ref, "lines": $count(Trigger.Payload.lines)} }',
              },
            },
          ],
          else: [
            {
              respond: {
                description: 'Rejected',
                statusCode: 422,
                contentType: 'text/plain',
                body: 'order {{Trigger.Payload.ref}} has no lines',
              },
            },
          ],
        },
      },
    ],
    'echo.exact': [
      { respond: { description: 'Echo the payload text', statusCode: 200, body: '${Trigger.PayloadJson}' } },
    ],
    'slow.timeout': [
      {
        httpRequest: {
          description: 'Slow upstream',
          url: `${target.url}/slow/timeout`,
          method: 'POST',
          timeout: '10s',
        },
      },
      { respond: { description: 'Too late for the caller', statusCode: 200, body: 'late' } },
    ],
    'deferral.first': [
      { sleep: { description: 'Wait before answering', duration: '1s' } },
      { respond: { description: 'Never reached in time', statusCode: 200, body: 'x' } },
    ],
    'no.respond': [{ log: { description: 'Only logs', message: 'done' } }],
    'respond.then.continue': [
      { respond: { description: 'Acknowledge', statusCode: 202, body: '${ {"accepted": true} }' } },
      { sleep: { description: 'Let the provider settle', duration: '1s' } },
      {
        httpRequest: {
          description: 'Notify downstream',
          url: `${target.url}/after/{{Execution.Id}}`,
          method: 'POST',
          body: '${Trigger.PayloadJson}',
        },
      },
    ],
    'fails.early': [{ fail: { description: 'Refuse', message: 'not today' } }],
  };
  for (const [activity, steps] of Object.entries(flows)) {
    const extra =
      activity === 'slow.timeout'
        ? { syncTimeoutSeconds: 1 }
        : activity === 'no.respond'
          ? { defaultResponseStatusCode: 202, defaultResponseContentType: 'text/plain' }
          : {};
    secrets[activity] = (
      await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), sync(activity, extra), steps))
    ).secret;
  }
});
test.after.always(async () => {
  await stack?.close();
  await target?.close();
});

const call = (activity: string, payloadText?: string) =>
  callWebhook(stack, { company: tenant.company, activity, secret: secrets[activity]!, auth: tenant.auth, payloadText });

test('a respond step answers the caller with the flow-chosen status, type and body', async (t) => {
  const answer = await call('orders.import', '{"ref": "4711", "lines": [{"sku": "X"}, {"sku": "Y"}]}');
  t.is(answer.status, 200);
  t.is(answer.value!.statusCode, 201);
  t.is(answer.value!.contentType, 'application/json');
  t.deepEqual(JSON.parse(answer.value!.body), { orderNumber: 'SO-4711', lines: 2 });
  t.is(answer.headers.get('x-flowhook-outcome'), 'responded');
});

test('a flow-chosen 422 travels inside value while the outer status stays 200', async (t) => {
  const answer = await call('orders.import', '{"ref": "4712", "lines": []}');
  t.is(answer.status, 200);
  t.deepEqual(answer.value, { statusCode: 422, contentType: 'text/plain', body: 'order 4712 has no lines' });
});

test('the payload reaches the flow byte for byte (big integers, odd spacing, key order)', async (t) => {
  const payloadText =
    '{ "z" :1,"a":  [ 1.50 ,2e3, -0.0],\n\t"big": 123456789012345678901234567890, "s":"\\u00e9\\"}{" ,"n":null }';
  const answer = await call('echo.exact', payloadText);
  t.is(answer.status, 200);
  t.is(answer.value!.body, payloadText);
});

test('the sync timeout answers the default response and the flow goes on', async (t) => {
  const answer = await call('slow.timeout');
  const answeredAt = Date.now();
  t.is(answer.status, 200);
  t.deepEqual(answer.value, { statusCode: 200, contentType: 'application/json', body: '' });
  t.is(answer.headers.get('x-flowhook-outcome'), 'sync-timeout');
  // The upstream answers 3 s after it was called: the caller got its answer before that.
  const upstream = await target.waitFor('/slow/timeout');
  t.true(answeredAt < upstream.at + 3000, `answered ${answeredAt - upstream.at} ms after the upstream call started`);
  const result = await stack.temporal.workflow.getHandle(answer.executionId!).result();
  t.deepEqual(
    result.steps.map((s: { type: string; status: string }) => `${s.type}:${s.status}`),
    ['webhook:completed', 'httpRequest:completed', 'respond:skipped'],
  );
});

test('a deferral before any respond step is a 500 for the caller and fails the execution with the reason', async (t) => {
  const answer = await call('deferral.first');
  t.is(answer.status, 500);
  const error = JSON.parse(answer.text).error;
  t.regex(error.message, /deferral/);
  const executionId = error.message.match(/execution ([^)]+)\)/)?.[1];
  t.truthy(executionId);
  const failure = await t.throwsAsync(stack.temporal.workflow.getHandle(executionId).result(), {
    instanceOf: WorkflowFailedError,
  });
  t.regex(
    String((failure?.cause as Error | undefined)?.message),
    /sleep "Wait before answering" is a time-based deferral/,
  );
});

test('a flow that ends without a respond step answers the default response', async (t) => {
  const answer = await call('no.respond');
  t.is(answer.status, 200);
  t.deepEqual(answer.value, { statusCode: 202, contentType: 'text/plain', body: '' });
  t.is(answer.headers.get('x-flowhook-outcome'), 'flow-ended');
});

test('after the respond step the rest of the flow runs durably (sleep, then an outbound call)', async (t) => {
  const answer = await call('respond.then.continue', '{"invoice": 99}');
  const answeredAt = Date.now();
  t.is(answer.value!.statusCode, 202);
  t.deepEqual(JSON.parse(answer.value!.body), { accepted: true });
  const downstream = await target.waitFor(`/after/${answer.executionId!}`);
  t.true(downstream.at >= answeredAt + 500, 'the outbound call happens after the caller was answered');
  t.is(downstream.body, '{"invoice": 99}');
  t.truthy(downstream.headers['idempotency-key']);
  const result = await stack.temporal.workflow.getHandle(answer.executionId!).result();
  t.is(result.outcome, 'RESPONDED');
});

test('a flow that fails before responding is a 500 with an OData error, never a stack trace', async (t) => {
  const answer = await call('fails.early');
  t.is(answer.status, 500);
  const error = JSON.parse(answer.text).error;
  t.regex(error.message, /not today/);
  t.notRegex(answer.text, /at .*\.ts:\d+/);
});
