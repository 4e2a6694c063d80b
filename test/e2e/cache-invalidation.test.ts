// Published flows and callers are cached in each engine; a change made through another
// engine on the same database (PostgreSQL LISTEN/NOTIFY) must reach it.
import test from 'ava';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine, type RunningEngine } from '../../engine/main.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import {
  callWebhook,
  createTenant,
  deployFlow,
  engineWebhookClient,
  flow,
  type Tenant,
} from '../support/webhook-helpers.ts';
import { createAdminClient } from '../../bin/cli/admin-client.ts';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import { AppState } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { equalTo, eventually } from '../support/eventually.ts';

let stack: TestStack;
let tenant: Tenant;
let otherEngine: RunningEngine;

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  otherEngine = await runEngine(readEngineConfig({ ...stack.env, FLOWHOOK_ENGINE_PORT: '0' }));
});
test.after.always(async () => {
  await otherEngine?.close();
  await stack?.close();
});

test('a secret rotated or a flow unpublished through another engine stops working here', async (t) => {
  const { secret } = await deployFlow(stack, flow(tenant.company, 'cached', { activity: 'cached.flow' }, []));
  const call = (s: string) =>
    callWebhook(stack, { company: tenant.company, activity: 'cached.flow', secret: s, auth: tenant.auth }).then(
      (a) => a.status,
    );
  t.is(await call(secret), 200);
  t.is(await call(secret), 200, 'served from the warm cache');

  const other = createAdminClient({ engineUrl: `http://127.0.0.1:${otherEngine.port}`, adminToken: stack.adminToken });
  const { secret: rotated } = await other.rotateSecret({ company: tenant.company, activity: 'cached.flow' });
  t.is(await eventually(() => call(secret), { until: equalTo(401) }), 401);
  t.is(await call(rotated), 200);

  await other.unpublishFlow({ company: tenant.company, name: 'cached' });
  t.is(await eventually(() => call(rotated), { until: equalTo(404) }), 404);
});

test('a flow paused through another engine holds the executions of calls made here; resumed there, they run', async (t) => {
  const { secret } = await deployFlow(stack, flow(tenant.company, 'cached-pause', { activity: 'cached.pause' }, []));
  const call = () =>
    callWebhook(stack, { company: tenant.company, activity: 'cached.pause', secret, auth: tenant.auth });
  t.is((await call()).status, 200, 'warms the cache');
  const other = createAdminClient({ engineUrl: `http://127.0.0.1:${otherEngine.port}`, adminToken: stack.adminToken });
  await other.pauseFlow({ company: tenant.company, name: 'cached-pause' });
  // This engine gives each execution the pause gate once the change feed told it (its details say so at start).
  const held = await eventually(
    async () => {
      const answer = await call();
      const details = await stack.temporal.workflow
        .getHandle(answer.executionId!)
        .describe()
        .then((d) => d.staticDetails());
      return /held: the flow was paused/.test(details ?? '') ? answer.executionId! : undefined;
    },
    { what: 'a call made here is held' },
  );
  await other.resumeFlow({ company: tenant.company, name: 'cached-pause' });
  t.is(
    ((await stack.temporal.workflow.getHandle(held!).result()) as { outcome: string }).outcome,
    'INSTANT_RETURN',
    'the held execution ran after the resume',
  );
});

test('a user disabled or a key regenerated through another engine is refused here; an expired key at its expiry', async (t) => {
  const { secret } = await deployFlow(stack, flow(tenant.company, 'cached-users', { activity: 'cached.users' }, []));
  const other = createAdminClient({ engineUrl: `http://127.0.0.1:${otherEngine.port}`, adminToken: stack.adminToken });
  const userName = `cached-${Math.random().toString(36).slice(2, 8)}`;
  const { accessKey } = await stack.admin.createUser({
    name: userName,
    company: tenant.company,
    permissionSet: 'FLOW ALL',
  });
  const basic = (key: string) => `Basic ${Buffer.from(`${userName}:${key}`).toString('base64')}`;
  const call = (key: string) =>
    callWebhook(stack, { company: tenant.company, activity: 'cached.users', secret, auth: basic(key) }).then(
      (a) => a.status,
    );
  t.is(await call(accessKey), 200);
  t.is(await call(accessKey), 200, 'served from the warm cache');

  await other.setUserState({ name: userName, enabled: false });
  t.is(await eventually(() => call(accessKey), { until: equalTo(401) }), 401);
  await other.setUserState({ name: userName, enabled: true });
  t.is(await eventually(() => call(accessKey), { until: equalTo(200) }), 200);

  const { accessKey: regenerated } = await other.regenerateUserKey({ name: userName });
  t.is(await eventually(() => call(accessKey), { until: equalTo(401) }), 401);
  t.is(await call(regenerated), 200);

  const { accessKey: shortLived } = await other.regenerateUserKey({
    name: userName,
    accessKeyExpiresAt: timestampFromDate(new Date(Date.now() + 2000)),
  });
  t.is(await eventually(() => call(shortLived), { until: equalTo(200) }), 200);
  // The key's expiry passing is the event: nothing announces it, so the test waits past it.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  t.is(await call(shortLived), 401, 'expired while cached');
});

test('an application disabled through another engine is refused here', async (t) => {
  // Applications authenticate with tokens the facade verifies; the engine's part is the
  // registration, so this drives the engine directly with a verified client id and issuer.
  const { secret } = await deployFlow(stack, flow(tenant.company, 'cached-apps', { activity: 'cached.apps' }, []));
  const clientId = `app-${Math.random().toString(36).slice(2, 8)}`;
  const issuer = 'https://idp.example.test';
  await stack.admin.registerApp({
    clientId,
    issuer,
    company: tenant.company,
    permissionSet: 'FLOW INTEGR.',
    consentGranted: true,
    state: AppState.ENABLED,
  });
  const other = createAdminClient({ engineUrl: `http://127.0.0.1:${otherEngine.port}`, adminToken: stack.adminToken });
  const webhook = engineWebhookClient(stack);
  const invoke = () =>
    webhook
      .invoke({
        company: tenant.company,
        activity: 'cached.apps',
        secret,
        payloadJson: '{}',
        caller: { identity: { case: 'application', value: { clientId, issuer } } },
      })
      .then(
        () => 200,
        (error: unknown) => (ConnectError.from(error).code === Code.Unauthenticated ? 401 : 500),
      );
  t.is(await invoke(), 200);
  t.is(await invoke(), 200, 'served from the warm cache');
  await other.setAppState({ clientId, state: AppState.DISABLED });
  t.is(await eventually(invoke, { until: equalTo(401) }), 401);
});
