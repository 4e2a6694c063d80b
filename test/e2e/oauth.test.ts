// Service-to-service callers (OAuth 2.0 client credentials) against a real OAuth 2.0
// authorization server (oidc-provider, client credentials + resource
// indicators): only an application registered under the token's issuer,
// consented, enabled and with "FLOW INTEGR." for the company starts a flow,
// and the execution records it. Issuer binding across several trusted issuers
// is in oauth-issuer-binding.test.ts.
import test, { type ExecutionContext } from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { SignJWT, UnsecuredJWT, decodeJwt, generateKeyPair } from 'jose';
import { AppState } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { FLOW_CALLER_KEY } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { accessAdmin, type AccessAdmin } from '../support/access-admin.ts';
import { startAuthorizationServer, type TestAuthorizationServer, type TestClient } from '../support/oauth-provider.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, countExecutions, deployFlow, flow } from '../support/webhook-helpers.ts';

const API = 'api://flowhook-test';
const OTHER_API = 'https://other-api.test';
const COMPANY = 'Fabrikam';
const ACTIVITY = 'oauth.orders';
/** Only ever called by callers that must be refused: no execution may exist for it. */
const GUARDED = 'oauth.guarded';

const client = (name: string): TestClient => ({
  clientId: `${name}-${Math.random().toString(36).slice(2, 8)}`,
  clientSecret: `${name}-secret-${'s'.repeat(24)}`,
});
const integration = client('integration');
const flowAllOnly = client('flow-all-only');
const disabled = client('disabled');
const unconsented = client('unconsented');
const unknown = client('unknown');

let idp: TestAuthorizationServer;
let untrustedIdp: TestAuthorizationServer;
let stack: TestStack;
let admin: AccessAdmin;
let secret: string;
let guardedSecret: string;

test.before(async () => {
  idp = await startAuthorizationServer({
    clients: [integration, flowAllOnly, disabled, unconsented, unknown],
    resources: [API, OTHER_API],
  });
  untrustedIdp = await startAuthorizationServer({ clients: [integration], resources: [API] });
  stack = await startStack({ env: { FLOWHOOK_OAUTH_ISSUERS: idp.issuer, FLOWHOOK_OAUTH_AUDIENCE: API } });
  admin = accessAdmin(stack);
  await stack.admin.createCompany({ name: COMPANY });
  ({ secret } = await deployFlow(
    stack,
    flow(COMPANY, 'oauth-orders', { activity: ACTIVITY, responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { respond: { description: 'answer', statusCode: 200, body: 'accepted' } },
    ]),
  ));
  ({ secret: guardedSecret } = await deployFlow(stack, flow(COMPANY, 'oauth-guarded', { activity: GUARDED }, [])));
  const register = (app: TestClient, permissionSet: string, options: { consent?: boolean; state?: AppState } = {}) =>
    admin.apps.registerApp({
      clientId: app.clientId,
      issuer: idp.issuer,
      company: COMPANY,
      permissionSet,
      consentGranted: options.consent ?? true,
      state: options.state ?? AppState.ENABLED,
      description: 'test app',
    });
  await register(integration, 'FLOW INTEGR.');
  // FLOW ALL cannot be given to an application (it never lets one call): registered without a set, it holds none in the company.
  await register(flowAllOnly, '');
  await register(disabled, 'FLOW INTEGR.', { state: AppState.DISABLED });
  await register(unconsented, 'FLOW INTEGR.', { consent: false });
});
test.after.always(async () => {
  await stack?.close();
  await idp?.close();
  await untrustedIdp?.close();
});

const call = (token: string, callSecret = secret) =>
  callWebhook(stack, { company: COMPANY, activity: ACTIVITY, secret: callSecret, auth: `Bearer ${token}` });
const callGuarded = (token: string, callSecret = guardedSecret) =>
  callWebhook(stack, { company: COMPANY, activity: GUARDED, secret: callSecret, auth: `Bearer ${token}` });

async function unauthorized(t: ExecutionContext, token: string, why: string): Promise<void> {
  const answer = await callGuarded(token);
  t.is(answer.status, 401, why);
  t.is(answer.text, 'Unauthorized', why);
  t.is(answer.executionId, null, why);
}

/** A token signed with the authorization server's own key, with the claims a test chooses. */
function craft(claims: Record<string, unknown>, key = idp.privateKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: integration.clientId, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: idp.kid, typ: 'at+jwt' })
    .setIssuer((claims.iss as string) ?? idp.issuer)
    .setAudience((claims.aud as string) ?? API)
    .setIssuedAt((claims.iat as number) ?? now - 10)
    .setExpirationTime((claims.exp as number) ?? now + 300)
    .sign(key);
}

test('a registered, consented, enabled application with FLOW INTEGR. runs the flow, recorded as its caller', async (t) => {
  const answer = await call(await idp.token(integration));
  t.is(answer.status, 200, answer.text);
  t.is(answer.value?.body, 'accepted');
  const description = await stack.temporal.workflow.getHandle(answer.executionId!).describe();
  t.is(description.typedSearchAttributes.get(FLOW_CALLER_KEY), `app:${integration.clientId}`);
});

test('an application with no set in the company learns nothing about it: one 401 for a known flow, a wrong secret and an unknown activity', async (t) => {
  const token = await idp.token(flowAllOnly);
  const known = await callGuarded(token);
  t.is(known.status, 401);
  t.is(known.text, 'Unauthorized');
  t.is(known.executionId, null);
  for (const [why, answer] of [
    ['wrong secret', await callGuarded(token, 'x'.repeat(32))],
    [
      'unknown activity',
      await callWebhook(stack, {
        company: COMPANY,
        activity: 'no.such.activity',
        secret: guardedSecret,
        auth: `Bearer ${token}`,
      }),
    ],
    [
      'unknown company',
      await callWebhook(stack, {
        company: 'No Such Company',
        activity: GUARDED,
        secret: guardedSecret,
        auth: `Bearer ${token}`,
      }),
    ],
  ] as const) {
    t.deepEqual([answer.status, answer.text], [known.status, known.text], why);
  }
  t.is(await countExecutions(stack, GUARDED), 0);
});

test('a valid token with a wrong secret is 401 and starts nothing', async (t) => {
  const answer = await callGuarded(await idp.token(integration), 'W'.repeat(32));
  t.is(answer.status, 401);
  t.is(answer.text, 'Unauthorized');
  // With issuers configured the challenge offers Bearer (the recommended path) first, then Basic.
  t.is(answer.headers.get('www-authenticate'), 'Bearer realm="flowhook", Basic realm="flowhook"');
  t.is(await countExecutions(stack, GUARDED), 0);
});

test('a token issued longer ago than FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS (default one day) is 401, though its exp is ahead', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  await unauthorized(t, await craft({ iat: now - 2 * 86_400 }), 'issued two days ago');
  t.is((await call(await craft({ iat: now - 3600 }))).status, 200, 'an hour old is within the default');
});

test('disabled, unconsented and unregistered applications are 401', async (t) => {
  await unauthorized(t, await idp.token(disabled), 'disabled');
  await unauthorized(t, await idp.token(unconsented), 'no consent');
  await unauthorized(t, await idp.token(unknown), 'not registered in flowhook');
});

test('disabling an application takes effect at once; enabling it again restores access', async (t) => {
  const app = client('toggled');
  await admin.apps.registerApp({
    clientId: app.clientId,
    issuer: idp.issuer,
    company: COMPANY,
    permissionSet: 'FLOW INTEGR.',
    consentGranted: true,
    state: AppState.ENABLED,
  });
  const token = await craft({ client_id: app.clientId });
  t.is((await call(token)).status, 200);
  await admin.apps.setAppState({ clientId: app.clientId, state: AppState.DISABLED });
  await unauthorized(t, token, 'disabled');
  await admin.apps.setAppState({ clientId: app.clientId, state: AppState.ENABLED });
  t.is((await call(token)).status, 200);
});

test('revoking consent refuses the next token at once; registering with consent restores it', async (t) => {
  const app = client('revoked');
  await admin.apps.registerApp({
    clientId: app.clientId,
    issuer: idp.issuer,
    company: COMPANY,
    permissionSet: 'FLOW INTEGR.',
    consentGranted: true,
    state: AppState.ENABLED,
  });
  const token = await craft({ client_id: app.clientId });
  t.is((await call(token)).status, 200);
  const revoked = await admin.apps.revokeAppConsent({ clientId: app.clientId });
  t.true(revoked.wasGranted);
  t.like(revoked.app, { consentGranted: false, state: AppState.ENABLED });
  t.deepEqual(
    revoked.app?.permissionSets.map((set) => [set.permissionSet, set.company]),
    [['FLOW INTEGR.', COMPANY]],
    'its sets stay',
  );
  await unauthorized(t, token, 'consent revoked');
  t.false((await admin.apps.revokeAppConsent({ clientId: app.clientId })).wasGranted, 'revoking again changes nothing');
  await admin.apps.registerApp({ clientId: app.clientId, issuer: idp.issuer, consentGranted: true });
  t.is((await call(token)).status, 200);
  const unknownApp = await t.throwsAsync(admin.apps.revokeAppConsent({ clientId: 'never-registered' }));
  t.is((unknownApp as ConnectError).code, Code.NotFound);
});

test('expired, wrong-audience, untrusted-issuer, tampered and unsigned tokens are 401', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  await unauthorized(t, await craft({ exp: now - 120 }), 'expired beyond the clock tolerance');
  await unauthorized(t, await craft({ nbf: now + 600 }), 'not yet valid');
  await unauthorized(t, await idp.token(integration, OTHER_API), 'issued for another API resource');
  await unauthorized(t, await untrustedIdp.token(integration), 'issued by an untrusted authorization server');
  await unauthorized(t, await craft({ iss: 'https://login.example.test/' }), 'claims an untrusted issuer');
  await unauthorized(
    t,
    await craft({ iss: untrustedIdp.issuer }, untrustedIdp.privateKey),
    'signed by the untrusted server',
  );
  const { privateKey: strangerKey } = await generateKeyPair('RS256');
  await unauthorized(t, await craft({}, strangerKey), 'signed with a key not in the JWKS');

  const [header, , signature] = (await idp.token(flowAllOnly)).split('.');
  const forged = Buffer.from(
    JSON.stringify({ ...decodeJwt(await idp.token(flowAllOnly)), client_id: integration.clientId }),
  ).toString('base64url');
  await unauthorized(t, `${header}.${forged}.${signature}`, 'payload changed after signing');

  const unsigned = new UnsecuredJWT({ client_id: integration.clientId })
    .setIssuer(idp.issuer)
    .setAudience(API)
    .setIssuedAt()
    .setExpirationTime('5m')
    .encode();
  await unauthorized(t, unsigned, 'alg: none');
  await unauthorized(t, 'not-a-jwt', 'malformed');
  t.is(await countExecutions(stack, GUARDED), 0);
});

test('a user (delegated) token is refused: only application tokens are accepted', async (t) => {
  await unauthorized(t, await craft({ scp: 'user_impersonation' }), 'delegated token');
});

test('SUPER and FLOW ALL are never assignable to an application: both name FLOW INTEGR.', async (t) => {
  for (const permissionSet of ['SUPER', 'FLOW ALL']) {
    const error = await t.throwsAsync(
      admin.apps.registerApp({
        clientId: client(`refused-${permissionSet.replace(/\W/g, '')}`).clientId,
        issuer: idp.issuer,
        permissionSet,
      }),
    );
    t.true(error instanceof ConnectError);
    t.is((error as ConnectError).code, Code.InvalidArgument);
    t.regex((error as ConnectError).rawMessage, /applications need "FLOW INTEGR\."/);
  }
});

test('registering needs the issuer', async (t) => {
  const error = await t.throwsAsync(
    admin.apps.registerApp({ clientId: client('no-issuer').clientId, permissionSet: 'FLOW INTEGR.' }),
  );
  t.is((error as ConnectError).code, Code.InvalidArgument);
  t.regex((error as ConnectError).rawMessage, /issuer: required/);
});

test('an application listed by the admin service shows its issuer, tenant, state, consent and permission sets', async (t) => {
  const { apps } = await admin.apps.listApps({});
  const listed = apps.find((app) => app.clientId === integration.clientId);
  t.is(listed?.issuer, idp.issuer);
  t.is(listed?.tenantId, '');
  t.is(listed?.state, AppState.ENABLED);
  t.true(listed?.consentGranted);
  t.deepEqual(
    listed?.permissionSets.map((set) => [set.permissionSet, set.company]),
    [['FLOW INTEGR.', COMPANY]],
  );
});
