// Idempotency-Key: a retried call joins or replays the first execution
// instead of starting a second one — also under concurrent load.
import test from 'ava';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import {
  callWebhook,
  countVisibleExecutions,
  createTenant,
  deployFlow,
  flow,
  runsOf,
  type Tenant,
} from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let slowTarget: TargetServer;
const secrets: Record<string, string> = {};

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  secrets['keyed.instant'] = (
    await deployFlow(stack, flow(tenant.company, 'keyed-instant', { activity: 'keyed.instant' }, []))
  ).secret;
  secrets['keyed.sync'] = (
    await deployFlow(
      stack,
      flow(tenant.company, 'keyed-sync', { activity: 'keyed.sync', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
        { respond: { statusCode: 201, body: '${ {"n": Trigger.Payload.n, "at": Execution.Id} }' } },
        { fail: { description: 'fails after answering', message: 'late failure' } },
      ]),
    )
  ).secret;
  slowTarget = await startTargetServer(() => ({ delayMs: 1500, body: '{"slow": true}' }));
  secrets['keyed.slow'] = (
    await deployFlow(
      stack,
      flow(tenant.company, 'keyed-slow', { activity: 'keyed.slow', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
        { name: 'wait', httpRequest: { description: 'a slow target', method: 'GET', url: `${slowTarget.url}/slow` } },
        { respond: { statusCode: 200, body: '${ {"n": Trigger.Payload.n, "at": Execution.Id} }' } },
      ]),
    )
  ).secret;
});
test.after.always(async () => {
  await stack?.close();
  await slowTarget?.close();
});

const call = (activity: string, key: string | undefined, payloadText = '{}') =>
  callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[activity]!,
    auth: tenant.auth,
    payloadText,
    headers: key ? { 'idempotency-key': key } : {},
  });

test.serial(
  'a sync retry after the execution closed gets the same stored answer, even when the flow failed later',
  async (t) => {
    const first = await call('keyed.sync', 'order-77', '{"n": 1}');
    t.is(first.status, 200);
    t.is(first.value!.statusCode, 201);
    await t.throwsAsync(stack.temporal.workflow.getHandle(first.executionId!).result());
    const retry = await call('keyed.sync', 'order-77', '{"n": 1}');
    t.is(retry.status, 200);
    t.is(retry.executionId, first.executionId);
    t.deepEqual(retry.value, first.value);
    const fresh = await call('keyed.sync', undefined, '{"n": 2}');
    t.not(fresh.executionId, first.executionId);
    // The Standard Webhooks header works the same way.
    const viaWebhookId = await callWebhook(stack, {
      company: tenant.company,
      activity: 'keyed.sync',
      secret: secrets['keyed.sync']!,
      auth: tenant.auth,
      payloadText: '{"n": 1}',
      headers: { 'webhook-id': 'order-77' },
    });
    t.is(viaWebhookId.executionId, first.executionId);
  },
);

test.serial(
  '2,000 calls at concurrency 50 with reused keys: exactly one execution per distinct key answered 200',
  async (t) => {
    const keys = Array.from({ length: 300 }, (_, i) => `load-${i}-${Math.random().toString(36).slice(2, 8)}`);
    const accepted = new Set<string>();
    let unkeyed = 0;
    let refused = 0;
    let next = 0;
    const worker = async () => {
      while (next < 2000) {
        const index = next++;
        const key = index % 10 === 0 ? undefined : keys[Math.floor(Math.random() * keys.length)];
        const answer = await call('keyed.instant', key);
        if (answer.status !== 200) {
          refused++;
          continue;
        }
        if (key) accepted.add(key);
        else unkeyed++;
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    t.is(refused, 0);
    const expected = accepted.size + unkeyed;
    t.is(await countVisibleExecutions(stack, 'keyed.instant', expected), expected);
  },
);

test.serial('the same key with another payload is refused with 422 and starts nothing, in both modes', async (t) => {
  for (const activity of ['keyed.instant', 'keyed.sync']) {
    const key = `reuse-${activity}-${Math.random().toString(36).slice(2)}`;
    const first = await call(activity, key, '{"n": 1}');
    t.is(first.status, 200);
    // Byte-exact: the same object spelled differently is another payload too.
    for (const other of ['{"n": 2}', '{"n":1}']) {
      const reused = await call(activity, key, other);
      t.is(reused.status, 422, `${activity} ${other}`);
      const error = JSON.parse(reused.text).error;
      t.is(error.code, 'UnprocessableEntity');
      t.regex(error.message, /idempotency key was already used for a call with another payload/);
      t.is(reused.executionId, null);
    }
    // A keyed call can only ever start the execution its key names: still exactly one run of it.
    t.is(await runsOf(stack.temporal, first.executionId!), 1);
    // The original payload is still answered as before.
    const retry = await call(activity, key, '{"n": 1}');
    t.is(retry.status, 200);
    t.is(retry.executionId, first.executionId);
  }
});

test.serial(
  'a retry while the first sync call still waits joins it: same answer, one execution; another payload meanwhile is 422',
  async (t) => {
    const key = `join-${Math.random().toString(36).slice(2)}`;
    const first = call('keyed.slow', key, '{"n": 5}');
    // The first call waits on its flow once the flow's slow request reached the target.
    await slowTarget.waitFor('/slow');
    const [joined, conflicting] = await Promise.all([
      call('keyed.slow', key, '{"n": 5}'),
      call('keyed.slow', key, '{"n": 6}'),
    ]);
    const original = await first;
    t.is(original.status, 200);
    t.is(joined.status, 200);
    t.is(joined.executionId, original.executionId);
    t.deepEqual(joined.value, original.value);
    t.is(joined.headers.get('x-flowhook-outcome'), 'responded');
    t.is(conflicting.status, 422);
    t.is(slowTarget.received.length, 1);
    t.is(await countVisibleExecutions(stack, 'keyed.slow', 1), 1);
  },
);
