// The payload reaches the flow exactly as sent, end to end: a formula that writes the payload, or a number
// of it, unchanged writes the caller's exact text (spacing, key order, number
// spelling), in a respond body and in an httpRequest body; computed values
// are written as computed.
import test from 'ava';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let target: TargetServer;
const secrets: Record<string, string> = {};

// Integer keys after others (JavaScript would move them first), a big integer, 1.10, 1e3, -0 and odd spacing.
const PAYLOAD =
  '{ "zeta" :1, "10": "ten",\n\t"amount": 12345678901234567890 , "price":1.10, "qty": 1e3, "neg": -0,"lines": [ {"sku":"A", "price": 2.50} ] }';

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  target = await startTargetServer();
  const flows: Record<string, unknown[]> = {
    'exact.whole': [
      {
        respond: {
          description: 'Echo the payload',
          statusCode: 200,
          contentType: 'application/json',
          body: '${Trigger.Payload}',
        },
      },
    ],
    'exact.amount': [
      {
        respond: {
          description: 'Echo the amount',
          statusCode: 200,
          contentType: 'text/plain',
          body: '${Trigger.Payload.amount}',
        },
      },
    ],
    'exact.mixed': [
      {
        respond: {
          description: 'Payload parts in a larger body',
          statusCode: 200,
          body: '{"got": ${Trigger.Payload}, "amount": {{Trigger.Payload.amount}}, "line": ${Trigger.Payload.lines[0]}, "built": ${ {"price": Trigger.Payload.price, "qty": Trigger.Payload.qty, "double": Trigger.Payload.price * 2} }}',
        },
      },
    ],
    'exact.forward': [
      { respond: { description: 'Acknowledge', statusCode: 202, body: 'ok' } },
      {
        httpRequest: {
          description: 'Forward the payload',
          method: 'POST',
          url: `${target.url}/forward/{{Execution.Id}}`,
          body: '${Trigger.Payload}',
        },
      },
    ],
  };
  for (const [activity, steps] of Object.entries(flows)) {
    const webhook = { activity, responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 10 };
    secrets[activity] = (
      await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), webhook, steps))
    ).secret;
  }
});
test.after.always(async () => {
  await stack?.close();
  await target?.close();
});

const call = (activity: string) =>
  callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[activity]!,
    auth: tenant.auth,
    payloadText: PAYLOAD,
  });

test('a respond body "${Trigger.Payload}" is the caller\'s exact text', async (t) => {
  const answer = await call('exact.whole');
  t.is(answer.status, 200);
  t.is(answer.value!.body, PAYLOAD);
});

test('"${Trigger.Payload.amount}" writes the exact digits of a number beyond 2^53', async (t) => {
  const answer = await call('exact.amount');
  t.is(answer.value!.body, '12345678901234567890');
});

test('payload parts keep their spelling inside a larger body; computed numbers are written as computed', async (t) => {
  const answer = await call('exact.mixed');
  t.is(
    answer.value!.body,
    `{"got": ${PAYLOAD}, "amount": 12345678901234567890, "line": {"sku":"A", "price": 2.50}, "built": {"price":1.10,"qty":1e3,"double":2.2}}`,
  );
});

test('an httpRequest body "${Trigger.Payload}" sends the exact text', async (t) => {
  const answer = await call('exact.forward');
  t.is(answer.value!.statusCode, 202);
  const forwarded = await target.waitFor(`/forward/${answer.executionId}`);
  t.is(forwarded.body, PAYLOAD);
});
