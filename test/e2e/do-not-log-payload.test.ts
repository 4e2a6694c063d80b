// doNotLogPayload end to end: the flow reads the payload as usual, but its
// text appears nowhere in Temporal's history (read with the Temporal CLI, as
// an operator would) nor in the execution log; without the flag it does.
import { createHash, randomBytes } from 'node:crypto';
import test from 'ava';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';
import { historyText } from '../support/history-text.ts';

let stack: TestStack;
let tenant: Tenant;
let target: TargetServer;
const secrets: Record<string, string> = {};

const steps = (targetUrl: string) => [
  { name: 'card', set: { description: 'Read the card', variables: { number: '${Trigger.Payload.card}' } } },
  {
    name: 'charge',
    httpRequest: {
      description: 'Charge the card',
      method: 'POST',
      url: `${targetUrl}/charge`,
      body: '${Trigger.PayloadJson}',
    },
  },
  { log: { description: 'Note the card', message: 'charged {{Variables.number}}' } },
  {
    record: {
      description: 'Remember the charge',
      table: 'charge',
      key: '${Execution.Id}',
      insert: { card: '${Variables.number}' },
    },
  },
  {
    respond: {
      description: 'Echo the card',
      statusCode: 200,
      body: '${ {"card": Variables.number, "upstream": Steps.charge.status} }',
    },
  },
];

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  target = await startTargetServer();
  const sync = { responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 10 };
  secrets.hidden = (
    await deployFlow(
      stack,
      flow(tenant.company, 'hidden', { activity: 'cards.hidden', doNotLogPayload: true, ...sync }, steps(target.url)),
    )
  ).secret;
  secrets.visible = (
    await deployFlow(stack, flow(tenant.company, 'visible', { activity: 'cards.visible', ...sync }, steps(target.url)))
  ).secret;
  secrets.failing = (
    await deployFlow(
      stack,
      flow(tenant.company, 'failing', { activity: 'cards.failing', doNotLogPayload: true }, [
        { fail: { description: 'Refuse the card', message: 'card {{Trigger.Payload.card}} refused' } },
      ]),
    )
  ).secret;
});
test.after.always(async () => {
  await stack?.close();
  await target?.close();
});

const marker = () => `CARD-${randomBytes(8).toString('hex')}`;
const call = (activity: string, card: string) =>
  callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[activity.split('.')[1]!]!,
    auth: tenant.auth,
    payloadText: `{"card": "${card}"}`,
  });

test('with doNotLogPayload the flow reads the payload, but Temporal history and the execution log never show it', async (t) => {
  const card = marker();
  const answer = await call('cards.hidden', card);
  t.is(answer.status, 200, answer.text);
  t.deepEqual(JSON.parse(answer.value!.body), { card, upstream: 200 });
  // The respond step runs after the httpRequest step, so the call has been received.
  t.true(
    target.received.some((request) => request.path === '/charge' && request.body.includes(card)),
    'the outbound call still carries the payload',
  );
  const handle = stack.engine.client.workflow.getHandle(answer.executionId!);
  const result = await handle.result();
  t.is(result.steps.find((step: { type: string }) => step.type === 'log').note, 'withheld (doNotLogPayload)');
  const history = await historyText(answer.executionId!);
  t.true(history.includes('binary/encrypted'), 'payloads are encrypted');
  t.false(history.includes(card), 'the card number is not in the history, not even base64-decoded');
});

test('a failure message quoting the payload of a doNotLogPayload flow stays out of the history', async (t) => {
  const card = marker();
  const answer = await call('cards.failing', card);
  t.is(answer.status, 200);
  await t.throwsAsync(stack.engine.client.workflow.getHandle(answer.executionId!).result());
  const history = await historyText(answer.executionId!);
  t.true(
    history.includes('WORKFLOW_EXECUTION_FAILED') || history.includes('WorkflowExecutionFailed'),
    history.slice(0, 500),
  );
  t.false(history.includes(card));
});

test('without the flag the payload is visible to operators in the history and the execution log', async (t) => {
  const card = marker();
  const answer = await call('cards.visible', card);
  t.is(answer.status, 200, answer.text);
  const result = await stack.engine.client.workflow.getHandle(answer.executionId!).result();
  t.is(result.steps.find((step: { type: string }) => step.type === 'log').note, `charged ${card}`);
  const history = await historyText(answer.executionId!);
  t.true(history.includes(card));
  t.false(history.includes('binary/encrypted'));
});

test("a keyed call's payload digest is an HMAC, encrypted in the memo of a doNotLogPayload flow, in clear for others", async (t) => {
  for (const [activity, hidden] of [
    ['cards.hidden', true],
    ['cards.visible', false],
  ] as const) {
    const card = marker();
    const payloadText = `{"card": "${card}"}`;
    const answer = await callWebhook(stack, {
      company: tenant.company,
      activity,
      secret: secrets[activity.split('.')[1]!]!,
      auth: tenant.auth,
      payloadText,
      headers: { 'idempotency-key': `digest-${card}` },
    });
    t.is(answer.status, 200, answer.text);
    const digest = createHash('sha256').update(payloadText).digest('hex');
    const history = await historyText(answer.executionId!);
    // Never a plain SHA-256 of the payload (not in the id, the update id or the memo): that would confirm a guessed payload.
    t.false(history.includes(digest.slice(0, 32)), `${activity}: no plain payload hash in the history`);
    // The keyed HMAC is in the memo: in clear for operators, encrypted for doNotLogPayload flows.
    t.is(history.includes('"hmac"'), !hidden, `${activity}: digest ${hidden ? 'hidden' : 'visible'}`);
    t.false(hidden && history.includes(card));
  }
});
