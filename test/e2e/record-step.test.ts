// The record step end to end: flows read and write company-scoped records
// through the engine; missing and duplicate keys and version conflicts fail
// the step with a clear message in the execution's failure (the caller's 500
// names the step only); a retried write applies once.
import test, { type ExecutionContext } from 'ava';
import { recordClient } from '../support/record-client.ts';
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

let stack: TestStack;
let acme: Tenant;
let other: Tenant;
const secrets: Record<string, string> = {};
const sync = (activity: string) => ({ activity, responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 10 });
const key = '${Trigger.Payload.id}';

const flows: Record<string, unknown[]> = {
  'records.lifecycle': [
    {
      name: 'inserted',
      record: {
        description: 'Create the invoice',
        table: 'invoice',
        key,
        insert: { amount: '${Trigger.Payload.amount}', status: 'open' },
      },
    },
    { name: 'read', record: { description: 'Read it back', table: 'invoice', key, get: {} } },
    {
      name: 'paid',
      record: {
        description: 'Mark it paid',
        table: 'invoice',
        key,
        modify: { status: 'paid' },
        expectedVersion: '${Steps.read.version}',
      },
    },
    { name: 'upserted', record: { description: 'Note the payer', table: 'invoice', key, upsert: { payer: 'Ada' } } },
    { name: 'deleted', record: { description: 'Remove it', table: 'invoice', key, delete: {} } },
    { name: 'gone', record: { description: 'Look again', table: 'invoice', key, get: { allowMissing: true } } },
    {
      respond: {
        description: 'Report',
        statusCode: 200,
        body: '${ {"inserted": Steps.inserted.version, "read": Steps.read.data, "paid": Steps.paid, "upserted": Steps.upserted, "deleted": Steps.deleted.data.status, "gone": Steps.gone.found} }',
      },
    },
  ],
  'records.insert': [
    { name: 'r', record: { description: 'Create', table: 'invoice', key, insert: { n: 1 } } },
    { respond: { description: 'Created', statusCode: 201, body: '${ {"version": Steps.r.version} }' } },
  ],
  'records.modify': [
    {
      record: {
        description: 'Change',
        table: 'invoice',
        key,
        modify: { n: 2 },
        expectedVersion: '${Trigger.Payload.version}',
      },
    },
    { respond: { description: 'Changed', statusCode: 200, body: 'ok' } },
  ],
  'records.get': [
    { name: 'r', record: { description: 'Read', table: 'invoice', key, get: {} } },
    { respond: { description: 'Found', statusCode: 200, body: '${Steps.r.data}' } },
  ],
};

test.before(async () => {
  stack = await startStack();
  acme = await createTenant(stack, 'Acme Ltd.');
  other = await createTenant(stack, 'Other Corp');
  for (const tenant of [acme, other]) {
    for (const [activity, steps] of Object.entries(flows)) {
      secrets[`${tenant.company}/${activity}`] = (
        await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), sync(activity), steps))
      ).secret;
    }
  }
});
test.after.always(async () => {
  await stack?.close();
});

const call = (tenant: Tenant, activity: string, payloadText: string) =>
  callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[`${tenant.company}/${activity}`]!,
    auth: tenant.auth,
    payloadText,
  });

test('a flow inserts, reads, modifies, upserts and deletes a record', async (t) => {
  const answer = await call(acme, 'records.lifecycle', '{"id": "INV-1", "amount": 120.5}');
  t.is(answer.status, 200, answer.text);
  const body = JSON.parse(answer.value!.body);
  t.is(body.inserted, 1);
  t.deepEqual(body.read, { amount: 120.5, status: 'open' });
  t.like(body.paid, {
    found: true,
    table: 'invoice',
    key: 'INV-1',
    version: 2,
    data: { amount: 120.5, status: 'paid' },
  });
  t.like(body.upserted, { created: false, version: 3, data: { amount: 120.5, status: 'paid', payer: 'Ada' } });
  t.is(body.deleted, 'paid');
  t.false(body.gone);
});

/** The caller's 500 names the step only; the record key and the reason are in the execution's failure. */
async function assertFailure(
  t: ExecutionContext,
  answer: WebhookAnswer,
  step: RegExp,
  reason: RegExp,
  key: string,
): Promise<void> {
  t.is(answer.status, 500);
  const failure = await failureReasonOf(stack, answer);
  t.regex(failure.callerMessage, step);
  t.false(failure.callerMessage.includes(key), failure.callerMessage);
  t.regex(failure.reason, reason);
}

test('a duplicate key, a missing record and a wrong version fail the step with a clear message', async (t) => {
  t.is((await call(acme, 'records.insert', '{"id": "INV-2"}')).value?.statusCode, 201);
  await assertFailure(
    t,
    await call(acme, 'records.insert', '{"id": "INV-2"}'),
    /steps\[0\] record .* failed/,
    /record "INV-2" of table "invoice" already exists/,
    'INV-2',
  );
  await assertFailure(
    t,
    await call(acme, 'records.modify', '{"id": "INV-404", "version": 1}'),
    /record .* failed/,
    /record "INV-404" of table "invoice" does not exist/,
    'INV-404',
  );
  await assertFailure(
    t,
    await call(acme, 'records.modify', '{"id": "INV-2", "version": 7}'),
    /record .* failed/,
    /has version 1, expected 7/,
    'INV-2',
  );
  t.is((await call(acme, 'records.modify', '{"id": "INV-2", "version": 1}')).value?.body, 'ok');
});

test('records are company-scoped: another company neither sees nor collides with them', async (t) => {
  t.is((await call(acme, 'records.insert', '{"id": "SHARED-1"}')).value?.statusCode, 201);
  await assertFailure(
    t,
    await call(other, 'records.get', '{"id": "SHARED-1"}'),
    /record .* failed/,
    /does not exist/,
    'SHARED-1',
  );
  t.is((await call(other, 'records.insert', '{"id": "SHARED-1"}')).value?.statusCode, 201);
});

test('a write retried with the same idempotency key applies once and answers the first result', async (t) => {
  const records = recordClient(stack);
  const scope = (idempotencyKey: string) => ({
    company: acme.company,
    table: 'counter',
    key: 'c1',
    caller: 'test',
    idempotencyKey,
  });
  await records.insertRecord({ scope: scope('exec-1/steps[0]'), data: { n: 0 } });
  const first = await records.modifyRecord({ scope: scope('exec-1/steps[1]'), data: { n: 1 } });
  const retried = await records.modifyRecord({ scope: scope('exec-1/steps[1]'), data: { n: 1 } });
  t.is(first.record?.version, 2n);
  t.is(retried.record?.version, 2n);
  t.is((await records.getRecord({ scope: scope('') })).record?.version, 2n);
});
