// Names longer than any can be (issue 25, point 1) are refused at every door
// before anything is counted, cached or looked up for them: the provider
// route's path, the webhook call's company and activity, a Basic user name —
// through the facade, and on the engine's own RPCs. What an operator sees: a
// clear answer, and engine metrics that did not move (no provider call handled,
// no caller looked up). Creating a longer name is refused with the same limit.
import test from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { NAME_LIMITS } from '../../common/name-limits.ts';
import { scrape, total } from '../support/metrics-samples.ts';
import { INSTANCE, startStack, type TestStack } from '../support/stack.ts';
import {
  callWebhook,
  createTenant,
  deployFlow,
  engineWebhookClient,
  flow,
  type Tenant,
} from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let secret: string;

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, 'Names Co');
  secret = (await deployFlow(stack, flow(tenant.company, 'names', { activity: 'names.ok' }, []))).secret;
});
test.after.always(async () => {
  await stack?.close();
});

const engineMetrics = () => scrape(`http://127.0.0.1:${stack.engine.metrics!.port}/metrics`);
const long = (length: number) => 'n'.repeat(length);
const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

test.serial('a provider-route path with 7,000-character names is a 404 the engine never sees', async (t) => {
  const before = await engineMetrics();
  for (let i = 0; i < 5; i++) {
    const answer = await fetch(`${stack.facadeUrl}/${INSTANCE}/hooks/${long(7000)}${i}/${long(7000)}`, {
      method: 'POST',
      body: '{}',
    });
    t.is(answer.status, 404);
    t.deepEqual(await answer.json(), { error: { code: 'NotFound', message: 'No provider route at this address' } });
  }
  // Just past the limits is past them too; at the limits the engine is asked (and finds nothing).
  t.is(
    (
      await fetch(`${stack.facadeUrl}/${INSTANCE}/hooks/${long(NAME_LIMITS.company + 1)}/x`, {
        method: 'POST',
        body: '{}',
      })
    ).status,
    404,
  );
  t.is(
    (
      await fetch(`${stack.facadeUrl}/${INSTANCE}/hooks/x/${long(NAME_LIMITS.activity + 1)}`, {
        method: 'POST',
        body: '{}',
      })
    ).status,
    404,
  );
  const after = await engineMetrics();
  t.is(
    total(after, 'flowhook_engine_direct_calls_total') - total(before, 'flowhook_engine_direct_calls_total'),
    0,
    'no provider call reached the engine',
  );
  t.is(
    (
      await fetch(`${stack.facadeUrl}/${INSTANCE}/hooks/${long(NAME_LIMITS.company)}/${long(NAME_LIMITS.activity)}`, {
        method: 'POST',
        body: '{}',
      })
    ).status,
    404,
  );
  t.is(
    total(await engineMetrics(), 'flowhook_engine_direct_calls_total') -
      total(after, 'flowhook_engine_direct_calls_total'),
    1,
  );
});

test.serial('a Basic user name longer than any user can have is 401 without the engine looking it up', async (t) => {
  const before = await engineMetrics();
  for (const user of [long(10_000), long(NAME_LIMITS.user + 1)]) {
    const answer = await callWebhook(stack, {
      company: tenant.company,
      activity: 'names.ok',
      secret,
      auth: basic(user, 'not-a-key'),
    });
    t.is(answer.status, 401);
    t.is(answer.text, 'Unauthorized');
  }
  const lookups = (text: string) => total(text, 'flowhook_engine_cache_lookups_total');
  t.is(lookups(await engineMetrics()) - lookups(before), 0, 'no caller, flow or account was looked up for them');
  // A name at the limit is an ordinary unknown user.
  t.is(
    (
      await callWebhook(stack, {
        company: tenant.company,
        activity: 'names.ok',
        secret,
        auth: basic(long(NAME_LIMITS.user), 'not-a-key'),
      })
    ).status,
    401,
  );
  t.is(
    (await callWebhook(stack, { company: tenant.company, activity: 'names.ok', secret, auth: tenant.auth })).status,
    200,
  );
});

test.serial('a company or activity past its limit on the webhook endpoint is 400 naming the limit', async (t) => {
  const company = await callWebhook(stack, {
    company: long(NAME_LIMITS.company + 1),
    activity: 'names.ok',
    secret,
    auth: tenant.auth,
  });
  t.is(company.status, 400);
  t.deepEqual(JSON.parse(company.text).error, {
    code: 'BadRequest',
    message: 'the company query parameter is too long (company name: at most 250 characters)',
  });
  const activity = await callWebhook(stack, {
    company: tenant.company,
    activity: long(NAME_LIMITS.activity + 1),
    secret,
    auth: tenant.auth,
  });
  t.is(activity.status, 400);
  t.deepEqual(JSON.parse(activity.text).error, {
    code: 'BadRequest',
    message: 'activity is too long (activity: at most 200 characters)',
  });
});

test.serial("the engine's own RPCs refuse such names the same way", async (t) => {
  const engine = engineWebhookClient(stack);
  const caller = {
    identity: { case: 'basic' as const, value: { userName: tenant.userName, accessKey: tenant.accessKey } },
  };
  const invoke = await t.throwsAsync(
    engine.invoke({ company: long(7000), activity: 'names.ok', secret, payloadJson: '{}', caller }),
    { instanceOf: ConnectError },
  );
  t.is(invoke!.code, Code.InvalidArgument);
  t.is(invoke!.rawMessage, 'company is too long (company name: at most 250 characters)');
  const direct = await t.throwsAsync(
    engine.invokeDirect({ company: long(7000), activity: long(7000), method: 'POST', body: new Uint8Array() }),
    { instanceOf: ConnectError },
  );
  t.is(direct!.code, Code.NotFound);
  t.is(direct!.rawMessage, 'No provider route at this address');
  const unknown = await t.throwsAsync(
    engine.checkCaller({
      company: tenant.company,
      caller: { identity: { case: 'basic', value: { userName: long(10_000), accessKey: 'x' } } },
    }),
    {
      instanceOf: ConnectError,
    },
  );
  t.is(unknown!.code, Code.Unauthenticated);
});

test.serial('names past the limits cannot be created either', async (t) => {
  await t.throwsAsync(stack.admin.createCompany({ name: long(NAME_LIMITS.company + 1) }), {
    message: /company name: at most 250 characters/,
  });
  await t.throwsAsync(stack.admin.createUser({ name: long(NAME_LIMITS.user + 1), company: tenant.company }), {
    message: /user name: 1-250 characters/,
  });
  await t.throwsAsync(
    deployFlow(stack, flow(tenant.company, 'too-long-activity', { activity: long(NAME_LIMITS.activity + 1) }, [])),
    {
      message: /activity: at most 200 characters/,
    },
  );
  await t.throwsAsync(
    deployFlow(stack, flow(tenant.company, long(NAME_LIMITS.flow + 1), { activity: 'names.long-flow' }, [])),
    { message: /name: at most 250 characters/ },
  );
});
