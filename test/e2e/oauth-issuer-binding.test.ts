// An application is its issuer's client id: with two trusted
// authorization servers that both know the same client id, a token from the
// one the application was not registered under is refused, as is a token for
// another tenant than the registered one, a user's token, and a token for an
// application registered before issuers were bound — until it is bound. Only
// the right token starts a flow.
import test, { type ExecutionContext } from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { SignJWT, type JWTPayload } from 'jose';
import { AppState } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { FLOW_CALLER_KEY } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { accessAdmin, type AccessAdmin } from '../support/access-admin.ts';
import { startAuthorizationServer, type TestAuthorizationServer, type TestClient } from '../support/oauth-provider.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, countExecutions, deployFlow, flow } from '../support/webhook-helpers.ts';

const API = 'api://flowhook-issuers';
const COMPANY = 'Northwind';
const ACTIVITY = 'issuers.orders';
/** Only ever called by callers that must be refused: no execution may exist for it. */
const GUARDED = 'issuers.guarded';

const client = (name: string): TestClient => ({
  clientId: `${name}-${Math.random().toString(36).slice(2, 8)}`,
  clientSecret: `${name}-secret-${'s'.repeat(24)}`,
});
/** Known to both authorization servers under the same client id; registered under A only. */
const shared = client('shared');
/** Registered under both issuers: two applications. */
const twice = client('twice');
const tenanted = client('tenanted');
const legacy = client('legacy');

let idpA: TestAuthorizationServer;
let idpB: TestAuthorizationServer;
let stack: TestStack;
let admin: AccessAdmin;
let secret: string;
let guardedSecret: string;

test.before(async () => {
  idpA = await startAuthorizationServer({ clients: [shared, twice, tenanted, legacy], resources: [API] });
  idpB = await startAuthorizationServer({ clients: [shared, twice, legacy], resources: [API] });
  stack = await startStack({
    env: { FLOWHOOK_OAUTH_ISSUERS: `${idpA.issuer},${idpB.issuer}`, FLOWHOOK_OAUTH_AUDIENCE: API },
  });
  admin = accessAdmin(stack);
  await stack.admin.createCompany({ name: COMPANY });
  ({ secret } = await deployFlow(
    stack,
    flow(COMPANY, 'issuers-orders', { activity: ACTIVITY, responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { respond: { description: 'answer', statusCode: 200, body: 'accepted' } },
    ]),
  ));
  ({ secret: guardedSecret } = await deployFlow(stack, flow(COMPANY, 'issuers-guarded', { activity: GUARDED }, [])));
  // A trailing slash in the registered issuer does not matter: the token's `iss` has none.
  await register(shared, `${idpA.issuer}/`);
  await register(tenanted, idpA.issuer, 'tenant-1');
});
test.after.always(async () => {
  await stack?.close();
  await idpA?.close();
  await idpB?.close();
});

function register(app: TestClient, issuer: string, tenantId = '') {
  return admin.apps.registerApp({
    clientId: app.clientId,
    issuer,
    tenantId,
    company: COMPANY,
    permissionSet: 'FLOW INTEGR.',
    consentGranted: true,
    state: AppState.ENABLED,
  });
}

const call = (token: string) =>
  callWebhook(stack, { company: COMPANY, activity: ACTIVITY, secret, auth: `Bearer ${token}` });

async function unauthorized(t: ExecutionContext, token: string, why: string): Promise<void> {
  const answer = await callWebhook(stack, {
    company: COMPANY,
    activity: GUARDED,
    secret: guardedSecret,
    auth: `Bearer ${token}`,
  });
  t.is(answer.status, 401, why);
  t.is(answer.text, 'Unauthorized', why);
  t.is(answer.executionId, null, why);
}

/** An access token signed with the authorization server's own key, with the claims a test chooses. */
function craft(idp: TestAuthorizationServer, app: TestClient, claims: JWTPayload = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: app.clientId, sub: app.clientId, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: idp.kid, typ: 'at+jwt' })
    .setIssuer(idp.issuer)
    .setAudience(API)
    .setIssuedAt(now - 10)
    .setExpirationTime(now + 300)
    .sign(idp.privateKey);
}

test('the token of the issuer the application is registered under runs the flow', async (t) => {
  const answer = await call(await idpA.token(shared));
  t.is(answer.status, 200, answer.text);
  t.is(answer.value?.body, 'accepted');
  const description = await stack.temporal.workflow.getHandle(answer.executionId!).describe();
  t.is(description.typedSearchAttributes.get(FLOW_CALLER_KEY), `app:${shared.clientId}`);
});

test('the same client id from another trusted issuer is refused and starts nothing', async (t) => {
  await unauthorized(t, await idpB.token(shared), 'a valid token of issuer B for a client id registered under A');
  await unauthorized(t, await craft(idpB, shared), 'crafted by B');
  t.is(await countExecutions(stack, GUARDED), 0);
});

test('registered under both issuers, they are two applications; state is switched per issuer', async (t) => {
  const first = await register(twice, idpA.issuer);
  const second = await register(twice, idpB.issuer);
  t.true(first.created);
  t.true(second.created, 'another issuer: another application');
  t.is(second.app?.issuer, idpB.issuer);
  t.is((await call(await idpA.token(twice))).status, 200);
  t.is((await call(await idpB.token(twice))).status, 200);

  const ambiguous = await t.throwsAsync(admin.apps.setAppState({ clientId: twice.clientId, state: AppState.DISABLED }));
  t.is((ambiguous as ConnectError).code, Code.FailedPrecondition);
  t.regex((ambiguous as ConnectError).rawMessage, /registered under 2 issuers .*name one with --issuer/);
  await admin.apps.setAppState({ clientId: twice.clientId, issuer: idpB.issuer, state: AppState.DISABLED });
  await unauthorized(t, await idpB.token(twice), 'B registration disabled');
  t.is((await call(await idpA.token(twice))).status, 200, 'A registration untouched');
});

test("a registered tenant must be the token's tenant", async (t) => {
  await unauthorized(t, await craft(idpA, tenanted, { tid: 'tenant-2' }), 'another tenant');
  await unauthorized(t, await idpA.token(tenanted), 'no tenant in the token');
  t.is((await call(await craft(idpA, tenanted, { tid: 'tenant-1' }))).status, 200);
  const { apps } = await admin.apps.listApps({});
  t.is(apps.find((app) => app.clientId === tenanted.clientId)?.tenantId, 'tenant-1');
});

test("a user's token from the right issuer is refused", async (t) => {
  await unauthorized(t, await craft(idpA, shared, { scp: 'user_impersonation' }), 'delegated scopes');
  await unauthorized(t, await craft(idpA, shared, { sub: 'user-42' }), 'an at+jwt token about a user');
  await unauthorized(t, await craft(idpA, shared, { preferred_username: 'alice' }), 'an end-user name');
});

test('an application registered before issuers were bound is refused until it is bound', async (t) => {
  await register(legacy, idpA.issuer);
  // What migration 0006 leaves for rows registered before: no issuer.
  await stack.engine.orm.em
    .getConnection()
    .execute(`update "identity_application" set "issuer" = null where "client_id" = ?`, [legacy.clientId]);
  await unauthorized(t, await idpA.token(legacy), 'issuer unset');
  const listed = (await admin.apps.listApps({})).apps.find((app) => app.clientId === legacy.clientId);
  t.is(listed?.issuer, '');

  const bound = await register(legacy, idpA.issuer);
  t.false(bound.created, 'the unbound registration is bound, with its grants');
  t.is(bound.app?.issuer, idpA.issuer);
  t.is((await call(await idpA.token(legacy))).status, 200);
  await unauthorized(t, await idpB.token(legacy), 'bound to A now');
});
