// The engine is not an open door (issue 4, issue 12): WebhookService needs an
// invoke account and the admin services an admin one, over Connect and gRPC alike;
// and the Basic path's access keys can be regenerated and users disabled.
import test, { type ExecutionContext } from 'ava';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { AppAdminService } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { UserAdminService } from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { accessAdmin, type AccessAdmin } from '../support/access-admin.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import {
  callWebhook,
  createTenant,
  deployFlow,
  engineWebhookClient,
  flow,
  type Tenant,
} from '../support/webhook-helpers.ts';

let stack: TestStack;
let admin: AccessAdmin;
let tenant: Tenant;
let secret: string;

test.before(async () => {
  stack = await startStack();
  admin = accessAdmin(stack);
  tenant = await createTenant(stack, 'Northwind');
  ({ secret } = await deployFlow(
    stack,
    flow(tenant.company, 'keys', { activity: 'keys.flow', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { respond: { description: 'answer', statusCode: 200, body: 'ok' } },
    ]),
  ));
});
test.after.always(async () => stack?.close());

const bearer =
  (token: string): Interceptor =>
  (next) =>
  (request) => {
    request.header.set('authorization', `Bearer ${token}`);
    return next(request);
  };

const transports = {
  connect: (interceptors: Interceptor[] = []) =>
    createConnectTransport({ baseUrl: stack.engineUrl, httpVersion: '2', interceptors }),
  grpc: (interceptors: Interceptor[] = []) => createGrpcTransport({ baseUrl: stack.engineUrl, interceptors }),
};

async function unauthenticated(t: ExecutionContext, promise: Promise<unknown>, why: string): Promise<void> {
  const error = await t.throwsAsync(promise, undefined, why);
  t.true(error instanceof ConnectError, why);
  t.is((error as ConnectError).code, Code.Unauthenticated, why);
}

async function permissionDenied(
  t: ExecutionContext,
  promise: Promise<unknown>,
  naming: string,
  why: string,
): Promise<void> {
  const error = await t.throwsAsync(promise, undefined, why);
  t.is((error as ConnectError).code, Code.PermissionDenied, why);
  t.true((error as ConnectError).rawMessage.includes(naming), `${why}: ${(error as ConnectError).rawMessage}`);
}

for (const [protocol, transport] of Object.entries(transports)) {
  test(`${protocol}: WebhookService without the service token is unauthenticated and starts nothing`, async (t) => {
    const invoke = {
      company: tenant.company,
      activity: 'keys.flow',
      secret,
      payloadJson: '{}',
      caller: {
        identity: { case: 'basic' as const, value: { userName: tenant.userName, accessKey: tenant.accessKey } },
      },
    };
    await unauthenticated(t, createClient(WebhookService, transport()).invoke(invoke), 'no token');
    await unauthenticated(
      t,
      createClient(WebhookService, transport([bearer('w'.repeat(32))])).invoke(invoke),
      'wrong token',
    );
    await permissionDenied(
      t,
      createClient(WebhookService, transport([bearer(stack.adminToken)])).invoke(invoke),
      'scope "invoke"',
      'an admin token is not an invoke token',
    );
    const answer = await createClient(WebhookService, transport([bearer(stack.serviceToken)])).invoke(invoke);
    t.is(answer.body, 'ok');
  });

  test(`${protocol}: the caller admin services need the admin token`, async (t) => {
    await unauthenticated(t, createClient(AppAdminService, transport()).listApps({}), 'apps, no token');
    await permissionDenied(
      t,
      createClient(AppAdminService, transport([bearer(stack.serviceToken)])).listApps({}),
      'scope "admin"',
      "apps, the facade's invoke token",
    );
    await unauthenticated(
      t,
      createClient(UserAdminService, transport()).setUserState({ name: tenant.userName, enabled: false }),
      'users, no token',
    );
    t.truthy(await createClient(AppAdminService, transport([bearer(stack.adminToken)])).listApps({}));
  });
}

const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;
const callAs = (auth: string) => callWebhook(stack, { company: tenant.company, activity: 'keys.flow', secret, auth });

test('a regenerated access key replaces the old one at once', async (t) => {
  const { accessKey } = await stack.admin.createUser({ name: 'rotating-user', company: tenant.company });
  t.is((await callAs(basic('rotating-user', accessKey))).status, 200);
  const regenerated = await admin.users.regenerateUserKey({ name: 'rotating-user' });
  t.is(regenerated.accessKey.length, 44);
  t.not(regenerated.accessKey, accessKey);
  t.is((await callAs(basic('rotating-user', accessKey))).status, 401);
  t.is((await callAs(basic('rotating-user', regenerated.accessKey))).status, 200);
});

test('a disabled user is 401 whatever key it sends; enabling restores access', async (t) => {
  const { accessKey } = await stack.admin.createUser({ name: 'paused-user', company: tenant.company });
  await admin.users.setUserState({ name: 'paused-user', enabled: false });
  const answer = await callAs(basic('paused-user', accessKey));
  t.is(answer.status, 401);
  t.is(answer.text, 'Unauthorized');
  await admin.users.setUserState({ name: 'paused-user', enabled: true });
  t.is((await callAs(basic('paused-user', accessKey))).status, 200);
});

test('regenerating the key of an unknown user is not found', async (t) => {
  const error = await t.throwsAsync(admin.users.regenerateUserKey({ name: 'nobody-here' }));
  t.is((error as ConnectError).code, Code.NotFound);
});

test('the engine itself refuses a payload nested deeper than 100 levels with InvalidArgument', async (t) => {
  const deep = `${'{"a":'.repeat(100)}{}${'}'.repeat(100)}`;
  const error = await t.throwsAsync(
    engineWebhookClient(stack).invoke({
      company: tenant.company,
      activity: 'keys.flow',
      secret,
      payloadJson: deep,
      caller: { identity: { case: 'basic', value: { userName: tenant.userName, accessKey: tenant.accessKey } } },
    }),
  );
  t.is(ConnectError.from(error).code, Code.InvalidArgument);
  t.regex(ConnectError.from(error).rawMessage, /payload nests objects and arrays deeper than 100 levels/);
});

test('a wrong Basic key is refused before the body is read: 401 even for a body that is not JSON', async (t) => {
  const { accessKey } = await stack.admin.createUser({ name: 'precheck-user', company: tenant.company });
  const broken = { company: tenant.company, activity: 'keys.flow', secret, payloadText: '{"unterminated' };
  t.is(
    (await callWebhook(stack, { ...broken, auth: basic('precheck-user', `${accessKey.slice(0, 40)}XXXX`) })).status,
    401,
  );
  t.is((await callWebhook(stack, { ...broken, auth: basic('nobody-at-all', accessKey) })).status, 401);
  // The right key gets as far as the body, which is then refused for what it is.
  t.is((await callWebhook(stack, { ...broken, auth: basic('precheck-user', accessKey) })).status, 400);
  // Remembered credentials still meet the engine's own check on every call: a disable takes effect at once.
  await admin.users.setUserState({ name: 'precheck-user', enabled: false });
  t.is(
    (
      await callWebhook(stack, {
        company: tenant.company,
        activity: 'keys.flow',
        secret,
        auth: basic('precheck-user', accessKey),
      })
    ).status,
    401,
  );
});
