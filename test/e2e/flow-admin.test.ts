// Publishing rules, secret rotation, versions and service-user checks, seen
// through the admin RPCs and the webhook endpoint.
import test from 'ava';
import { ConnectError, Code } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { fromJson } from '@bufbuild/protobuf';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { PUBLIC_URL, startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, 'Contoso & Co');
});
test.after.always(async () => stack?.close());

const respondWith = (body: string) => [{ respond: { description: 'answer', statusCode: 200, body } }];
const sync = (activity: string) => ({ activity, responseMode: 'WAIT_FOR_RESPONSE_STEP' });

async function rejected(
  t: import('ava').ExecutionContext,
  promise: Promise<unknown>,
  code: Code,
  pattern: RegExp,
): Promise<void> {
  const error = await t.throwsAsync(promise);
  t.true(error instanceof ConnectError, String(error));
  t.is((error as ConnectError).code, code, (error as ConnectError).rawMessage);
  t.regex((error as ConnectError).rawMessage, pattern);
}

test('a second flow with the same activity, differing only in case, is rejected at publish', async (t) => {
  await deployFlow(stack, flow(tenant.company, 'first', sync('dup.Activity'), respondWith('one')));
  await rejected(
    t,
    deployFlow(stack, flow(tenant.company, 'second', sync('DUP.activity'), respondWith('two'))),
    Code.AlreadyExists,
    /dup\.activity.*already published by flow "first"/,
  );
  // Apply and publish are one: the refused publish stored no draft (and no secret) either.
  await rejected(t, stack.admin.getFlow({ company: tenant.company, name: 'second' }), Code.NotFound, /does not exist/);
  // Saved without publishing, the draft exists; only publishing it is refused.
  await deployFlow(stack, flow(tenant.company, 'second', sync('DUP.activity'), respondWith('two')), false);
  await rejected(
    t,
    stack.admin.publishFlow({ company: tenant.company, name: 'second' }),
    Code.AlreadyExists,
    /already published by flow "first"/,
  );
  const { flow: saved } = await stack.admin.getFlow({ company: tenant.company, name: 'second' });
  t.is(saved?.publishedVersion, 0);
});

test('publish validation rejects a 1xx status code and names the field', async (t) => {
  await rejected(
    t,
    deployFlow(
      stack,
      flow(tenant.company, 'bad-status', sync('bad.status'), [{ respond: { statusCode: 101, body: '' } }]),
    ),
    Code.InvalidArgument,
    /steps\[0\]\.respond\.statusCode: .*200\.\.599/,
  );
  await rejected(
    t,
    deployFlow(
      stack,
      flow(tenant.company, 'bad-default', { activity: 'bad.default', defaultResponseStatusCode: 600 }, []),
    ),
    Code.InvalidArgument,
    /defaultResponseStatusCode/,
  );
});

test('publish warns about a deferral that can run before the respond step', async (t) => {
  const { warnings } = await deployFlow(
    stack,
    flow(tenant.company, 'warned', sync('warned.flow'), [{ sleep: { duration: '1s' } }, ...respondWith('late')]),
  );
  t.true(
    warnings.some((w) => /steps\[0\]\.sleep: a deferral can run before any respond step/.test(w)),
    warnings.join('\n'),
  );
});

test('rotating the secret invalidates the previous one at once', async (t) => {
  const { secret: old } = await deployFlow(
    stack,
    flow(tenant.company, 'rotating', sync('rotate.me'), respondWith('ok')),
  );
  t.is(old.length, 32);
  const { secret: fresh } = await stack.admin.rotateSecret({ company: tenant.company, activity: 'ROTATE.me' });
  t.is(fresh.length, 32);
  t.not(fresh, old);
  const call = (secret: string) =>
    callWebhook(stack, { company: tenant.company, activity: 'rotate.me', secret, auth: tenant.auth });
  t.is((await call(old)).status, 401);
  t.is((await call(fresh)).status, 200);
});

test('executions run the published version; a newer draft changes nothing until published', async (t) => {
  const { secret } = await deployFlow(
    stack,
    flow(tenant.company, 'versioned', sync('versioned.flow'), respondWith('v1')),
  );
  await deployFlow(stack, flow(tenant.company, 'versioned', sync('versioned.flow'), respondWith('v2')), false);
  const call = () =>
    callWebhook(stack, { company: tenant.company, activity: 'versioned.flow', secret, auth: tenant.auth });
  t.is((await call()).value?.body, 'v1');
  await stack.admin.publishFlow({ company: tenant.company, name: 'versioned' });
  t.is((await call()).value?.body, 'v2');
  await stack.admin.unpublishFlow({ company: tenant.company, name: 'versioned' });
  t.is((await call()).status, 404);
});

test('the flow card shows the Webhook Call URL with the company URL-encoded once published', async (t) => {
  await deployFlow(stack, flow(tenant.company, 'card', sync('card.flow'), respondWith('x')));
  const card = await stack.admin.getFlow({ company: tenant.company, name: 'card' });
  t.is(card.webhookCall?.url, `${PUBLIC_URL}/BC/ODataV4/flowWebhook_Invoke?company=Contoso%20%26%20Co`);
  t.regex(card.webhookCall!.sampleBody, /"activity":"card.flow"/);
  t.regex(card.webhookCall!.sampleBody, /"secret":"<secret>"/);
});

test('a service user with no permission set in the company is 401 whether its secret is right or not', async (t) => {
  const { secret } = await deployFlow(stack, flow(tenant.company, 'guarded', sync('guarded.flow'), respondWith('x')));
  await stack.admin.createCompany({ name: 'Elsewhere' });
  const { accessKey } = await stack.admin.createUser({
    name: 'other-company-user',
    company: 'Elsewhere',
    permissionSet: 'FLOW ALL',
  });
  const auth = `Basic ${Buffer.from(`other-company-user:${accessKey}`).toString('base64')}`;
  const wrongSecret = await callWebhook(stack, {
    company: tenant.company,
    activity: 'guarded.flow',
    secret: 'x'.repeat(32),
    auth,
  });
  const rightSecret = await callWebhook(stack, { company: tenant.company, activity: 'guarded.flow', secret, auth });
  // Nothing tells it the flow exists, nor that the secret was right (docs/explanation/security.md, "Tenants a caller has no grant in").
  t.deepEqual([rightSecret.status, rightSecret.text], [401, 'Unauthorized']);
  t.deepEqual([wrongSecret.status, wrongSecret.text], [401, 'Unauthorized']);
  t.is(rightSecret.executionId, null);
});

test('an expired access key is 401', async (t) => {
  const { secret } = await deployFlow(stack, flow(tenant.company, 'expiring', sync('expiring.flow'), respondWith('x')));
  const { accessKey } = await stack.admin.createUser({
    name: 'short-lived',
    company: tenant.company,
    accessKeyExpiresAt: timestampFromDate(new Date(Date.now() + 1500)),
  });
  const auth = `Basic ${Buffer.from(`short-lived:${accessKey}`).toString('base64')}`;
  t.is((await callWebhook(stack, { company: tenant.company, activity: 'expiring.flow', secret, auth })).status, 200);
  // The key's expiry passing is the event: nothing announces it, so the test waits past it.
  await new Promise((resolve) => setTimeout(resolve, 1600));
  t.is((await callWebhook(stack, { company: tenant.company, activity: 'expiring.flow', secret, auth })).status, 401);
});

test('admin RPCs need the admin token', async (t) => {
  const { createClient } = await import('@connectrpc/connect');
  const { createGrpcTransport } = await import('@connectrpc/connect-node');
  const { FlowAdminService } = await import('../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js');
  const anonymous = createClient(FlowAdminService, createGrpcTransport({ baseUrl: stack.engineUrl }));
  await rejected(t, anonymous.listCompanies({}), Code.Unauthenticated, /token/);
});

test('an unknown step type in a flow file is rejected before it reaches the engine', (t) => {
  t.throws(() => fromJson(FlowSchema, { company: 'x', name: 'y', steps: [{ teleport: {} }] } as never));
});
