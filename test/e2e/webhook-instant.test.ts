// Instant return end to end: facade → engine → Temporal → worker, on real
// PostgreSQL and a real Temporal dev server.
import test from 'ava';
import { PUBLIC_URL, startStack, type TestStack } from '../support/stack.ts';
import {
  callWebhook,
  countVisibleExecutions,
  createTenant,
  deployFlow,
  flow,
  type Tenant,
} from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let secret: string;
const activity = 'payments.provider.callback';

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  ({ secret } = await deployFlow(
    stack,
    flow(
      tenant.company,
      'payment-callback',
      { activity: 'Payments.Provider.Callback', defaultResponseStatusCode: 200 },
      [
        {
          name: 'order',
          set: { description: 'Read the order', variables: { orderId: '${Trigger.Payload.order.id}' } },
        },
        { respond: { description: 'Ignored in instant mode', statusCode: 201, body: 'never sent' } },
        { log: { description: 'Note it', message: 'order {{Variables.orderId}}' } },
      ],
    ),
  ));
});
test.after.always(async () => stack?.close());

test('answers the default response at once and the flow runs to its end', async (t) => {
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity,
    secret,
    auth: tenant.auth,
    payloadText: '{"order": {"id": "A-17"}}',
  });
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), 'application/json; odata.metadata=minimal');
  t.is(answer.headers.get('odata-version'), '4.0');
  const envelope = JSON.parse(answer.text);
  t.is(envelope['@odata.context'], `${PUBLIC_URL}/BC/ODataV4/$metadata#Edm.String`);
  t.is(typeof envelope.value, 'string');
  t.deepEqual(answer.value, { statusCode: 200, contentType: 'application/json', body: '' });
  t.is(answer.headers.get('x-flowhook-outcome'), 'instant-return');
  t.truthy(answer.executionId);

  const handle = stack.temporal.workflow.getHandle(answer.executionId!);
  const result = await handle.result();
  t.is(result.outcome, 'INSTANT_RETURN');
  t.deepEqual(
    result.steps.map((s: { type: string; status: string }) => `${s.type}:${s.status}`),
    ['webhook:completed', 'set:completed', 'respond:skipped', 'log:completed'],
  );
  t.is(result.steps[3].note, 'order A-17');
});

test('matches the activity case-insensitively', async (t) => {
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'PAYMENTS.provider.CALLBACK',
    secret,
    auth: tenant.auth,
  });
  t.is(answer.status, 200);
});

test('the execution is visible in Temporal with the activity in its id and search attributes', async (t) => {
  const answer = await callWebhook(stack, { company: tenant.company, activity, secret, auth: tenant.auth });
  t.true(answer.executionId!.startsWith(`${activity}:`));
  const description = await stack.temporal.workflow.getHandle(answer.executionId!).describe();
  t.is(description.taskQueue, stack.taskQueue);
  const attributes = Object.fromEntries(
    description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value]),
  );
  t.is(attributes.FlowActivity, activity);
  t.is(attributes.Company, tenant.company);
  t.is(attributes.ResponseMode, 'INSTANT_RETURN');
});

test('an unknown activity or company is 404 with an OData error', async (t) => {
  const unknownActivity = await callWebhook(stack, {
    company: tenant.company,
    activity: 'no.such.activity',
    secret,
    auth: tenant.auth,
  });
  t.is(unknownActivity.status, 404);
  const error = JSON.parse(unknownActivity.text).error;
  t.is(typeof error.code, 'string');
  t.regex(error.message, /no\.such\.activity/);

  // A company is only described to a caller with a set in it or in all companies; the tenant's user gets the bare 401.
  t.is((await callWebhook(stack, { company: 'Nobody Inc.', activity, secret, auth: tenant.auth })).status, 401);
  const { accessKey } = await stack.admin.createUser({ name: 'instant-everywhere', allCompanies: true });
  const everywhere = `Basic ${Buffer.from(`instant-everywhere:${accessKey}`).toString('base64')}`;
  const unknownCompany = await callWebhook(stack, { company: 'Nobody Inc.', activity, secret, auth: everywhere });
  t.is(unknownCompany.status, 404);
  t.regex(JSON.parse(unknownCompany.text).error.message, /Nobody Inc\./);
});

test('an activity only a draft has is 404 naming the flow and the command that publishes it', async (t) => {
  await deployFlow(stack, flow(tenant.company, 'draft-only', { activity: 'Orders.Draft' }, []), false);
  const draft = await callWebhook(stack, {
    company: tenant.company,
    activity: 'orders.draft',
    secret,
    auth: tenant.auth,
  });
  t.is(draft.status, 404);
  t.is(
    JSON.parse(draft.text).error.message,
    `Flow "draft-only" (activity "orders.draft") has no published version; publish it with: flowhook flow publish 'Acme Ltd.' draft-only`,
  );
  // Published since, then a new draft under another activity: the published version is not the one asked for.
  await stack.admin.publishFlow({ company: tenant.company, name: 'draft-only' });
  await deployFlow(stack, flow(tenant.company, 'draft-only', { activity: 'orders.draft.two' }, []), false);
  const second = await callWebhook(stack, {
    company: tenant.company,
    activity: 'orders.draft.two',
    secret,
    auth: tenant.auth,
  });
  t.is(
    JSON.parse(second.text).error.message,
    `Version 2 of flow "draft-only", which has activity "orders.draft.two", is not published; publish it with: flowhook flow publish 'Acme Ltd.' draft-only`,
  );
});

test('wrong secret, missing or wrong credentials are 401 "Unauthorized" and start no execution', async (t) => {
  // A flow only this test calls: after the refused calls, one accepted call must be the only execution.
  const guarded = 'guarded.instant';
  const { secret: guardedSecret } = await deployFlow(stack, flow(tenant.company, 'guarded', { activity: guarded }, []));
  const refused = [
    await callWebhook(stack, {
      company: tenant.company,
      activity: guarded,
      secret: `${guardedSecret}x`,
      auth: tenant.auth,
    }),
    await callWebhook(stack, { company: tenant.company, activity: guarded, secret: secret, auth: tenant.auth }),
    await callWebhook(stack, { company: tenant.company, activity: guarded, secret: guardedSecret }),
    await callWebhook(stack, {
      company: tenant.company,
      activity: guarded,
      secret: guardedSecret,
      auth: `Basic ${Buffer.from(`${tenant.userName}:nope`).toString('base64')}`,
    }),
    await callWebhook(stack, {
      company: tenant.company,
      activity: guarded,
      secret: guardedSecret,
      auth: `Basic ${Buffer.from(`nobody:${tenant.accessKey}`).toString('base64')}`,
    }),
  ];
  for (const answer of refused) {
    t.is(answer.status, 401);
    t.is(answer.text, 'Unauthorized');
    t.is(answer.executionId, null);
  }
  const accepted = await callWebhook(stack, {
    company: tenant.company,
    activity: guarded,
    secret: guardedSecret,
    auth: tenant.auth,
  });
  t.is(accepted.status, 200);
  await stack.temporal.workflow.getHandle(accepted.executionId!).result();
  t.is(await countVisibleExecutions(stack, guarded, 1), 1);
});
