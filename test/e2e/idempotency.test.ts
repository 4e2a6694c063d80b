// Idempotency-Key: a retried call joins or replays the first execution
// instead of starting a second one — also under concurrent load.
import test from 'ava';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, countExecutions, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
const secrets: Record<string, string> = {};

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  secrets['keyed.instant'] = (await deployFlow(stack, flow(tenant.company, 'keyed-instant', { activity: 'keyed.instant' }, []))).secret;
  secrets['keyed.sync'] = (await deployFlow(stack, flow(tenant.company, 'keyed-sync', { activity: 'keyed.sync', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
    { respond: { statusCode: 201, body: '${ {"n": Trigger.Payload.n, "at": Execution.Id} }' } },
    { fail: { description: 'fails after answering', message: 'late failure' } },
  ]))).secret;
});
test.after.always(async () => stack?.close());

const call = (activity: string, key: string | undefined, payloadText = '{}') =>
  callWebhook(stack, { company: tenant.company, activity, secret: secrets[activity]!, auth: tenant.auth, payloadText, headers: key ? { 'idempotency-key': key } : {} });

async function executions(activity: string, expected: number): Promise<number> {
  let count = await countExecutions(stack, activity);
  for (const deadline = Date.now() + 20_000; count < expected && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    count = await countExecutions(stack, activity);
  }
  return count;
}

test.serial('a sync retry after the execution closed gets the same stored answer, even when the flow failed later', async (t) => {
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
  const viaWebhookId = await callWebhook(stack, { company: tenant.company, activity: 'keyed.sync', secret: secrets['keyed.sync']!, auth: tenant.auth, payloadText: '{"n": 1}', headers: { 'webhook-id': 'order-77' } });
  t.is(viaWebhookId.executionId, first.executionId);
});

test.serial('2,000 calls at concurrency 50 with reused keys: exactly one execution per distinct key answered 200', async (t) => {
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
  t.is(await executions('keyed.instant', expected), expected);
});
