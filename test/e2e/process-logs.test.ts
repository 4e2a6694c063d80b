// What engine, worker and facade print, as real processes at debug log level,
// started once for every check on their logs (until issue 26 these were three
// files with a stack each: logs-secrecy, payload-logs and refusal-reasons):
// - after successful, unauthorized and failing calls, no secret, access key or
//   token appears in anything they printed, the request id threads the facade's
//   and the engine's lines, and SIGTERM stops each one cleanly;
// - flows with doNotLogPayload that log, fail and call an unreachable URL built
//   from the payload never make them print the payload;
// - "Why was it 401/403?" (issue 11): every refused call — Basic, Bearer,
//   secret, permission, and direct gRPC calls to the engine — answers the
//   caller as before and writes exactly one `call refused` line naming the
//   reason, the request id the caller got back, the company and (once known)
//   the activity; a warning, so it shows at the default level (info) too.
// The checks over everything printed run last, once the processes have stopped.
import test, { type ExecutionContext } from 'ava';
import { createHmac, randomBytes } from 'node:crypto';
import { fromJson } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWTPayload } from 'jose';
import pg from 'pg';
import { AppState } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { createAdminClient, type AdminClient } from '../../bin/cli/admin-client.ts';
import { REFUSAL_REASONS, REFUSED_CALL_MESSAGE, type RefusalReason } from '../../common/refusal-reasons.ts';
import { REFUSAL_REASON_METADATA } from '../../common/rpc-metadata.ts';
import { startAuthorizationServer, type TestAuthorizationServer, type TestClient } from '../support/oauth-provider.ts';
import { eventually } from '../support/eventually.ts';
import { startProcessStack, type ProcessStack } from '../support/process-stack.ts';
import { flow } from '../support/webhook-helpers.ts';

const API = 'api://flowhook-refusals';
const OTHER_API = 'https://other-api.test';
const COMPANY = 'Refusals';
const ELSEWHERE = 'Elsewhere';
const ACTIVITY = 'refusal.guarded';

const client = (name: string): TestClient => ({
  clientId: `${name}-${Math.random().toString(36).slice(2, 8)}`,
  clientSecret: `${name}-secret-${'s'.repeat(24)}`,
});
const apps = {
  integration: client('integration'),
  flowAllOnly: client('flow-all-only'),
  disabled: client('disabled'),
  unconsented: client('unconsented'),
  unknown: client('unknown'),
  otherIssuer: client('other-issuer'),
  tenanted: client('tenanted'),
  unbound: client('unbound'),
};
/** An issuer the facade does not trust: an application registered under it never matches a token of the test server. */
const OTHER_ISSUER = 'https://other-idp.example.test';

const TRACED_REQUEST_ID = 'trace-4711';
/** The traced call's execution (logs-secrecy): its facade and engine lines carry the request id. */
let tracedExecutionId = '';
/** doNotLogPayload: never printed; the control marker (the same calls without the flag) must be. */
const card = `CARD-${randomBytes(8).toString('hex')}`;
const control = `OPEN-${randomBytes(8).toString('hex')}`;

/** What one refused call should have logged. */
interface Expected {
  why: string;
  reason: RefusalReason;
  requestId: string;
  company?: string;
  activity?: string;
  user?: string;
  clientId?: string;
  permissionSet?: string;
}

let idp: TestAuthorizationServer;
let stack: ProcessStack;
let admin: AdminClient;
let secret: string;
const users: Record<string, string> = {};
/** Every credential sent in this file: none may appear in any log. */
const sent: string[] = [];
const expectations: Expected[] = [];

test.before(async () => {
  idp = await startAuthorizationServer({ clients: Object.values(apps), resources: [API, OTHER_API] });
  // Debug: the most the processes ever print. The refusal lines are warnings (checked per line), so
  // they show at the default level (info) as well.
  stack = await startProcessStack({
    env: { FLOWHOOK_LOG_LEVEL: 'debug', FLOWHOOK_OAUTH_ISSUERS: idp.issuer, FLOWHOOK_OAUTH_AUDIENCE: API },
  });
  admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.tokens.admin });
  await admin.createCompany({ name: COMPANY });
  await admin.createCompany({ name: ELSEWHERE });
  const definition = flow(COMPANY, 'refusal-guarded', { activity: ACTIVITY, responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
    { respond: { description: 'answer', statusCode: 200, body: 'ok' } },
  ]);
  ({ secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true }));
  sent.push(secret, stack.env.FLOWHOOK_ADMIN_TOKEN!, ...Object.values(stack.tokens));
  const createUser = async (name: string, company: string, expiresAt?: Date) => {
    const { accessKey } = await admin.createUser({
      name,
      company,
      permissionSet: 'FLOW ALL',
      accessKeyExpiresAt: expiresAt && timestampFromDate(expiresAt),
    });
    users[name] = accessKey;
    sent.push(accessKey);
  };
  await createUser('refusal-user', COMPANY);
  await createUser('refusal-disabled', COMPANY);
  await admin.setUserState({ name: 'refusal-disabled', enabled: false });
  await createUser('refusal-elsewhere', ELSEWHERE);
  const register = (
    app: TestClient,
    permissionSet: string,
    consentGranted: boolean,
    state: AppState,
    binding: { issuer?: string; tenantId?: string } = {},
  ) =>
    admin.registerApp({
      clientId: app.clientId,
      issuer: binding.issuer ?? idp.issuer,
      tenantId: binding.tenantId,
      company: COMPANY,
      permissionSet,
      consentGranted,
      state,
      description: 'refusal test app',
    });
  await register(apps.integration, 'FLOW INTEGR.', true, AppState.ENABLED);
  await register(apps.flowAllOnly, '', true, AppState.ENABLED);
  await register(apps.disabled, 'FLOW INTEGR.', true, AppState.DISABLED);
  await register(apps.unconsented, 'FLOW INTEGR.', false, AppState.ENABLED);
  await register(apps.otherIssuer, 'FLOW INTEGR.', true, AppState.ENABLED, { issuer: OTHER_ISSUER });
  await register(apps.tenanted, 'FLOW INTEGR.', true, AppState.ENABLED, { tenantId: 'tenant-1' });
  await register(apps.unbound, 'FLOW INTEGR.', true, AppState.ENABLED);
  // What migration 0006 leaves for applications registered before issuers were bound.
  const database = new pg.Client({ connectionString: stack.env.FLOWHOOK_DATABASE_URL });
  await database.connect();
  try {
    await database.query('update identity_application set issuer = null where client_id = $1', [apps.unbound.clientId]);
    // A FLOW ALL assignment stored before registering refused it (it never lets an application call): a set in the company, but not the one it needs.
    await database.query(
      `insert into application_permission (id, application_id, company_id, permission_set)
       select gen_random_uuid(), a.id, c.id, 'FLOW ALL' from identity_application a, company c where a.client_id = $1 and c.name = $2`,
      [apps.flowAllOnly.clientId, COMPANY],
    );
  } finally {
    await database.end();
  }
});
test.after.always(async () => {
  await stack?.stop();
  await idp?.close();
});

// ── calling ──

const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

async function post(
  authorization: string | undefined,
  callSecret = secret,
): Promise<{ status: number; text: string; requestId: string }> {
  // Long enough that finding one in the logs cannot be a coincidence.
  const credential = authorization?.replace(/^\S+\s+/, '') ?? '';
  if (credential.length >= 16) sent.push(credential);
  if (callSecret !== secret) sent.push(callSecret);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${COMPANY}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ activity: ACTIVITY, secret: callSecret, payload: { order: 1 } }),
  });
  return {
    status: response.status,
    text: await response.text(),
    requestId: response.headers.get('x-request-id') ?? '',
  };
}

/** A token signed with the authorization server's key (or another), with the claims given; `undefined` leaves one out. */
function craft(claims: JWTPayload, options: { key?: CryptoKey; kid?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = {
    iss: idp.issuer,
    aud: API,
    iat: now - 10,
    exp: now + 300,
    client_id: apps.integration.clientId,
    ...claims,
  };
  for (const name of Object.keys(payload)) if (payload[name] === undefined) delete payload[name];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? idp.kid, typ: 'at+jwt' })
    .sign(options.key ?? idp.privateKey);
}

/** Calls over HTTP, checks what the caller saw, and records what the log must say. */
async function refused(
  t: ExecutionContext,
  call: Omit<Expected, 'requestId'> & { authorization: string | undefined; secret?: string },
): Promise<void> {
  const { authorization, secret: callSecret, ...expected } = call;
  const answer = await post(authorization, callSecret);
  const status = REFUSAL_REASONS[expected.reason];
  t.is(answer.status, status, expected.why);
  if (status === 401) t.is(answer.text, 'Unauthorized', expected.why);
  else
    t.is(
      JSON.parse(answer.text).error.message,
      `Caller "${expected.user ?? expected.clientId}" lacks the permission set "${expected.permissionSet}" for company "${COMPANY}"`,
    );
  t.regex(answer.requestId, /^[0-9a-f-]{36}$/, expected.why);
  await expectOneLine(
    t,
    { ...expected, company: COMPANY, requestId: answer.requestId },
    expected.reason in FACADE_REASONS ? 'facade' : 'engine',
  );
}

// ── reading the logs ──

function logLines(): Record<string, unknown>[] {
  const output = stack.output();
  // Only whole lines: the last one may still be on its way.
  return output
    .slice(0, output.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const refusalLines = (requestId: string) =>
  logLines().filter((line) => line.msg === REFUSED_CALL_MESSAGE && line.requestId === requestId);

/**
 * Waits for the call's line, then for the facade's `request` line (written when the response is done,
 * after any refusal line of either process), then checks that exactly one refusal line exists. A
 * second line that arrived later still fails the count over all refusals at the end.
 */
async function expectOneLine(
  t: ExecutionContext,
  expected: Expected,
  decidedBy: 'facade' | 'engine',
  viaFacade = true,
): Promise<void> {
  expectations.push(expected);
  const arrived = () =>
    refusalLines(expected.requestId).length > 0 &&
    (!viaFacade || logLines().some((line) => line.msg === 'request' && line.requestId === expected.requestId));
  await eventually(arrived, {
    timeoutMs: 10_000,
    intervalMs: 50,
    what: `${expected.why}: the refusal line${viaFacade ? " and the facade's request line" : ''}`,
  }).catch(() => undefined); // the count below says what is missing
  const lines = refusalLines(expected.requestId);
  t.is(lines.length, 1, `${expected.why}: ${JSON.stringify(lines)}`);
  const line = lines[0] ?? {};
  t.is(line.level, 40, expected.why);
  t.is(line.name, decidedBy, expected.why);
  for (const field of ['reason', 'company', 'activity', 'user', 'clientId', 'permissionSet'] as const)
    t.is(line[field], expected[field], `${expected.why}: ${field}`);
}

/** Reasons the facade decides before it asks the engine (so the body, and with it the activity, is unread). */
const FACADE_REASONS = Object.fromEntries(
  (
    [
      'missing_credentials',
      'unsupported_scheme',
      'malformed_credentials',
      'token_issuer_untrusted',
      'token_signature_invalid',
      'token_key_unknown',
      'token_algorithm_refused',
      'token_expired',
      'token_too_old',
      'token_not_yet_valid',
      'token_audience_mismatch',
      'token_invalid',
      'token_delegated',
      'token_client_id_missing',
    ] as const
  ).map((reason) => [reason, true]),
) as Partial<Record<RefusalReason, true>>;

// ── secrets and tokens (what was logs-secrecy) ──

test('no secret, access key or token reaches the logs; the request id threads facade and engine', async (t) => {
  await admin.createCompany({ name: 'Secretive' });
  const { accessKey } = await admin.createUser({ name: 'log-test-user', company: 'Secretive' });
  const definition = flow(
    'Secretive',
    'secretive',
    { activity: 'secret.keeping', responseMode: 'WAIT_FOR_RESPONSE_STEP' },
    [
      { log: { description: 'log the activity', message: 'called {{Trigger.Activity}}' } },
      { respond: { statusCode: 200, body: 'ok' } },
    ],
  );
  const { secret: keeping } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
  const wrongSecret = `${keeping.slice(0, 31)}#`;
  const wrongKey = `${accessKey.slice(0, 20)}WRONGKEY`;
  sent.push(accessKey, keeping, wrongSecret, wrongKey);
  const url = `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Secretive`;
  const call = (body: unknown, key = accessKey, requestId?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: basic('log-test-user', key),
        ...(requestId ? { 'x-request-id': requestId } : {}),
      },
      body: JSON.stringify(body),
    });

  const traced = await call(
    { activity: 'secret.keeping', secret: keeping, payload: { a: 1 } },
    accessKey,
    TRACED_REQUEST_ID,
  );
  t.is(traced.status, 200);
  tracedExecutionId = traced.headers.get('x-flowhook-execution-id') ?? '';
  const badSecret = await call({ activity: 'secret.keeping', secret: wrongSecret, payload: {} });
  t.is(badSecret.status, 401);
  await expectOneLine(
    t,
    {
      why: 'a wrong secret',
      reason: 'secret_mismatch',
      requestId: badSecret.headers.get('x-request-id') ?? '',
      company: 'Secretive',
      activity: 'secret.keeping',
      user: 'log-test-user',
    },
    'engine',
  );
  const badKey = await call({ activity: 'secret.keeping', secret: keeping, payload: {} }, wrongKey);
  t.is(badKey.status, 401);
  await expectOneLine(
    t,
    {
      why: 'a wrong key',
      reason: 'bad_key',
      requestId: badKey.headers.get('x-request-id') ?? '',
      company: 'Secretive',
      user: 'log-test-user',
    },
    'engine',
  );
  t.is((await call({ activity: 'unknown.one', secret: keeping, payload: {} })).status, 404);
});

// ── doNotLogPayload (what was payload-logs) ──

test('the payload of a doNotLogPayload flow appears in no process log, also when its steps fail', async (t) => {
  await admin.createCompany({ name: 'Private' });
  const { accessKey } = await admin.createUser({ name: 'private-user', company: 'Private' });
  sent.push(accessKey);
  const deploy = async (activity: string, webhook: Record<string, unknown>, steps: unknown[]) =>
    (
      await admin.applyFlow({
        flow: fromJson(
          FlowSchema,
          flow('Private', activity.replace('.', '-'), { activity, doNotLogPayload: true, ...webhook }, steps) as never,
        ),
        publish: true,
      })
    ).secret;
  const calling = await deploy('private.call', { responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
    { log: { description: 'Note the card', message: 'card {{Trigger.Payload.card}}' } },
    {
      httpRequest: {
        description: 'Unreachable upstream',
        url: 'http://127.0.0.1:1/charge/{{Trigger.Payload.card}}',
        maxAttempts: 1,
        timeout: '2s',
      },
    },
  ]);
  // The same calling flow without the flag: its marker must show up, or the test would prove nothing.
  const open = (
    await admin.applyFlow({
      flow: fromJson(
        FlowSchema,
        flow('Private', 'open-call', { activity: 'open.call', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
          {
            httpRequest: {
              description: 'Unreachable upstream',
              url: 'http://127.0.0.1:1/charge/{{Trigger.Payload.card}}',
              maxAttempts: 1,
              timeout: '2s',
            },
          },
        ]) as never,
      ),
      publish: true,
    })
  ).secret;
  const failing = await deploy('private.fail', {}, [
    { fail: { description: 'Refuse', message: 'refused {{Trigger.Payload.card}}' } },
  ]);
  sent.push(calling, open, failing);
  const call = (activity: string, callSecret: string, value = card) =>
    fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Private`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic('private-user', accessKey) },
      body: JSON.stringify({ activity, secret: callSecret, payload: { card: value } }),
    });
  t.is((await call('private.call', calling)).status, 500, 'the failed call answers 500');
  const instant = await call('private.fail', failing);
  t.is(instant.status, 200);
  t.is((await call('open.call', open, control)).status, 500);
  // The Instant-return flow fails in the worker after the answer: wait for the worker to say so.
  const failedId = instant.headers.get('x-flowhook-execution-id');
  await eventually(
    () =>
      logLines().some(
        (line) => line.name === 'worker' && line.workflowId === failedId && line.msg === 'Workflow failed',
      ),
    {
      what: `the worker reporting ${failedId} failed`,
    },
  );
});

// ── the refusals ──

test('the facade refuses unreadable and missing credentials', async (t) => {
  await refused(t, { why: 'no Authorization header', reason: 'missing_credentials', authorization: undefined });
  await refused(t, {
    why: 'a scheme the facade does not accept',
    reason: 'unsupported_scheme',
    authorization: 'Negotiate YWJj',
  });
  await refused(t, {
    why: 'Basic that is not base64',
    reason: 'malformed_credentials',
    authorization: 'Basic not-base64!',
  });
});

test('the facade refuses each kind of bad token, naming the client id once the signature held', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const { privateKey: stranger } = await generateKeyPair('RS256');
  const integration = apps.integration.clientId;
  await refused(t, {
    why: 'untrusted issuer',
    reason: 'token_issuer_untrusted',
    authorization: `Bearer ${await craft({ iss: 'https://login.example.test/' })}`,
  });
  await refused(t, {
    why: 'signed with a key not in the JWKS',
    reason: 'token_signature_invalid',
    authorization: `Bearer ${await craft({}, { key: stranger })}`,
  });
  await refused(t, {
    why: 'a key id the JWKS does not have',
    reason: 'token_key_unknown',
    authorization: `Bearer ${await craft({}, { key: stranger, kid: 'unknown-kid' })}`,
  });
  const unsigned = new UnsecuredJWT({ client_id: integration })
    .setIssuer(idp.issuer)
    .setAudience(API)
    .setExpirationTime('5m')
    .encode();
  await refused(t, { why: 'alg: none', reason: 'token_algorithm_refused', authorization: `Bearer ${unsigned}` });
  await refused(t, {
    why: 'expired',
    reason: 'token_expired',
    clientId: integration,
    authorization: `Bearer ${await craft({ exp: now - 120 })}`,
  });
  // Still within its exp, but issued longer ago than FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS (default one day).
  await refused(t, {
    why: 'issued too long ago',
    reason: 'token_too_old',
    clientId: integration,
    authorization: `Bearer ${await craft({ iat: now - 2 * 86_400 })}`,
  });
  await refused(t, {
    why: 'not yet valid',
    reason: 'token_not_yet_valid',
    clientId: integration,
    authorization: `Bearer ${await craft({ nbf: now + 600 })}`,
  });
  await refused(t, {
    why: 'issued for another API',
    reason: 'token_audience_mismatch',
    clientId: integration,
    authorization: `Bearer ${await idp.token(apps.integration, OTHER_API)}`,
  });
  await refused(t, {
    why: 'no exp',
    reason: 'token_invalid',
    clientId: integration,
    authorization: `Bearer ${await craft({ exp: undefined })}`,
  });
  await refused(t, {
    why: 'a user token',
    reason: 'token_delegated',
    clientId: integration,
    authorization: `Bearer ${await craft({ scp: 'user_impersonation' })}`,
  });
  await refused(t, {
    why: 'no client id',
    reason: 'token_client_id_missing',
    authorization: `Bearer ${await craft({ client_id: undefined, sub: 'someone' })}`,
  });
});

test('the engine refuses applications that are unknown, of another issuer or tenant, unbound, without consent or disabled, and one without FLOW INTEGR.', async (t) => {
  const viaEngine = { activity: ACTIVITY };
  await refused(t, {
    ...viaEngine,
    why: 'not registered',
    reason: 'unknown_app',
    clientId: apps.unknown.clientId,
    authorization: `Bearer ${await idp.token(apps.unknown)}`,
  });
  await refused(t, {
    ...viaEngine,
    why: 'registered under another issuer',
    reason: 'app_issuer_mismatch',
    clientId: apps.otherIssuer.clientId,
    authorization: `Bearer ${await idp.token(apps.otherIssuer)}`,
  });
  await refused(t, {
    ...viaEngine,
    why: 'registered for another tenant',
    reason: 'app_tenant_mismatch',
    clientId: apps.tenanted.clientId,
    authorization: `Bearer ${await idp.token(apps.tenanted)}`,
  });
  await refused(t, {
    ...viaEngine,
    why: 'registered before issuers were bound',
    reason: 'app_issuer_unset',
    clientId: apps.unbound.clientId,
    authorization: `Bearer ${await idp.token(apps.unbound)}`,
  });
  await refused(t, {
    ...viaEngine,
    why: 'no consent',
    reason: 'app_not_consented',
    clientId: apps.unconsented.clientId,
    authorization: `Bearer ${await idp.token(apps.unconsented)}`,
  });
  await refused(t, {
    ...viaEngine,
    why: 'disabled',
    reason: 'app_disabled',
    clientId: apps.disabled.clientId,
    authorization: `Bearer ${await idp.token(apps.disabled)}`,
  });
  await refused(t, {
    ...viaEngine,
    why: 'FLOW ALL only',
    reason: 'missing_permission_set',
    clientId: apps.flowAllOnly.clientId,
    permissionSet: 'FLOW INTEGR.',
    authorization: `Bearer ${await idp.token(apps.flowAllOnly)}`,
  });
});

test('the engine refuses Basic callers: unknown, wrong key, disabled, expired key, wrong secret, no set in the company', async (t) => {
  const viaEngine = { activity: ACTIVITY };
  // Credentials are checked (WebhookService.CheckCaller) before the facade reads the body: no activity yet.
  await refused(t, {
    why: 'unknown user',
    reason: 'unknown_user',
    user: 'refusal-nobody',
    authorization: basic('refusal-nobody', users['refusal-user']!),
  });
  await refused(t, {
    why: 'wrong key',
    reason: 'bad_key',
    user: 'refusal-user',
    authorization: basic('refusal-user', `${users['refusal-user']!.slice(0, 30)}WRONGKEYWRONGK`),
  });
  await refused(t, {
    why: 'disabled user',
    reason: 'user_disabled',
    user: 'refusal-disabled',
    authorization: basic('refusal-disabled', users['refusal-disabled']!),
  });
  await refused(t, {
    ...viaEngine,
    why: 'wrong secret',
    reason: 'secret_mismatch',
    user: 'refusal-user',
    authorization: basic('refusal-user', users['refusal-user']!),
    secret: 'W'.repeat(32),
  });
  await refused(t, {
    ...viaEngine,
    why: 'FLOW ALL for another company only: answered like an unknown company',
    reason: 'no_grant_in_company',
    user: 'refusal-elsewhere',
    authorization: basic('refusal-elsewhere', users['refusal-elsewhere']!),
  });
  // Created just before its expiry and called just after it: the engine's cache never held it as valid.
  await admin
    .createUser({
      name: 'refusal-expiring',
      company: COMPANY,
      accessKeyExpiresAt: timestampFromDate(new Date(Date.now() + 1500)),
    })
    .then(({ accessKey }) => {
      users['refusal-expiring'] = accessKey;
      sent.push(accessKey);
    });
  // The key's expiry passing is the event: nothing announces it, so the test waits past it.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await refused(t, {
    why: 'expired key',
    reason: 'key_expired',
    user: 'refusal-expiring',
    authorization: basic('refusal-expiring', users['refusal-expiring']!),
  });
});

test('direct gRPC callers get a bare Unauthorized or a PermissionDenied naming the rule (the facade also its reason); the engine logs why', async (t) => {
  // The gate refuses on headers alone, before the message (and the request id in it) is read,
  // so these callers send the request id as a header as well, as the facade does.
  const headers =
    (token: string | undefined, requestId: string): Interceptor =>
    (next) =>
    (request) => {
      if (token) request.header.set('authorization', `Bearer ${token}`);
      request.header.set('x-request-id', requestId);
      return next(request);
    };
  const webhook = (token: string | undefined, requestId: string) =>
    createClient(
      WebhookService,
      createGrpcTransport({ baseUrl: stack.engineUrl, interceptors: [headers(token, requestId)] }),
    );
  const facadeToken = stack.tokens.facade;
  const wrongToken = `fhsa_${'w'.repeat(43)}`;
  sent.push(wrongToken);
  const wrongKey = `${users['refusal-user']!.slice(0, 30)}GRPCWRONGKEYXX`;
  sent.push(wrongKey);
  const disabled = await admin.createServiceAccount({ name: 'refusal-disabled', scope: 'invoke', allCompanies: true });
  await admin.setServiceAccountState({ name: 'refusal-disabled', enabled: false });
  const elsewhere = await admin.createServiceAccount({
    name: 'refusal-elsewhere',
    scope: 'invoke',
    companies: [ELSEWHERE],
  });
  sent.push(disabled.token, elsewhere.token);
  const invoke = (requestId: string, caller?: { userName: string; accessKey: string }) => ({
    company: COMPANY,
    activity: ACTIVITY,
    secret,
    payloadJson: '{}',
    requestId,
    caller: caller && { identity: { case: 'basic' as const, value: caller } },
  });
  const user = { userName: 'refusal-user', accessKey: users['refusal-user']! };
  const onTheCall = { company: COMPANY, activity: ACTIVITY };
  const cases: [string, string | undefined, ReturnType<typeof invoke>, Code, Omit<Expected, 'why' | 'requestId'>][] = [
    // The gate decides before the message is read: only the request id (a header) is logged.
    [
      'no service token',
      undefined,
      invoke('refusal-grpc-1', user),
      Code.Unauthenticated,
      { reason: 'service_token_missing' },
    ],
    [
      'a wrong service token',
      wrongToken,
      invoke('refusal-grpc-2', user),
      Code.Unauthenticated,
      { reason: 'service_token_invalid' },
    ],
    [
      'a disabled service account',
      disabled.token,
      invoke('refusal-grpc-5', user),
      Code.Unauthenticated,
      { reason: 'service_account_disabled' },
    ],
    [
      "the worker's records token on WebhookService",
      stack.tokens.worker,
      invoke('refusal-grpc-6', user),
      Code.PermissionDenied,
      { reason: 'service_account_scope' },
    ],
    // Past the gate: the engine read the message.
    [
      'no caller in the request',
      facadeToken,
      invoke('refusal-grpc-3'),
      Code.Unauthenticated,
      { reason: 'missing_credentials', ...onTheCall },
    ],
    [
      'a wrong key',
      facadeToken,
      invoke('refusal-grpc-4', { userName: 'refusal-user', accessKey: wrongKey }),
      Code.Unauthenticated,
      { reason: 'bad_key', ...onTheCall, user: 'refusal-user' },
    ],
    [
      'an internal service claiming a Basic user',
      stack.tokens.internal,
      invoke('refusal-grpc-7', user),
      Code.PermissionDenied,
      { reason: 'caller_forwarding_refused', ...onTheCall, user: 'refusal-user' },
    ],
    [
      'an invoke account of another company',
      elsewhere.token,
      invoke('refusal-grpc-8'),
      Code.PermissionDenied,
      { reason: 'service_account_company', ...onTheCall },
    ],
  ];
  for (const [why, token, request, code, expected] of cases) {
    const error = await t.throwsAsync(webhook(token, request.requestId).invoke(request), undefined, why);
    t.true(error instanceof ConnectError, why);
    t.is((error as ConnectError).code, code, why);
    if (code === Code.Unauthenticated && !expected.reason.startsWith('service_'))
      t.is((error as ConnectError).rawMessage, 'Unauthorized', why);
    t.false((error as ConnectError).rawMessage.includes(expected.reason), why);
    // The facade's account (it forwards callers) gets the engine's reason as one metadata entry, for its
    // delivery log (and never relays it); every other account gets no trace of it.
    const metadata = (error as ConnectError).metadata;
    const forFacade = token === facadeToken && !expected.reason.startsWith('service_');
    t.is(metadata.get(REFUSAL_REASON_METADATA), forFacade ? expected.reason : null, `${why}: the reason's metadata`);
    for (const [name, value] of metadata)
      if (name !== REFUSAL_REASON_METADATA) t.false(value.includes(expected.reason), `${why}: metadata ${name}`);
    await expectOneLine(t, { ...expected, why, requestId: request.requestId }, 'engine', false);
  }
});

test('the provider route: no hook secret, a missing, malformed or stale signature, a wrong one — each a 401 the engine logs with the scheme', async (t) => {
  const hookSecret = `whsec_${'k'.repeat(32)}`;
  sent.push(hookSecret);
  const direct = (activity: string) =>
    flow(COMPANY, activity.replace('.', '-'), { activity, direct: { verify: { stripe: {} } } }, []);
  await admin.applyFlow({ flow: fromJson(FlowSchema, direct('hooks.signed') as never), publish: true });
  await admin.applyFlow({ flow: fromJson(FlowSchema, direct('hooks.unset') as never), publish: true });
  await admin.setHookSecret({ company: COMPANY, activity: 'hooks.signed', secret: hookSecret });
  const body = '{"id": "evt_refusals", "object": "event"}';
  const now = Math.floor(Date.now() / 1000);
  const signature = (timestamp: number) =>
    createHmac('sha256', hookSecret).update(`${timestamp}.${body}`).digest('hex');
  const cases: [string, RefusalReason, string, string | undefined][] = [
    ['no hook secret set for the route', 'hook_secret_missing', 'hooks.unset', `t=${now},v1=${signature(now)}`],
    ['no Stripe-Signature header', 'missing_signature_header', 'hooks.signed', undefined],
    ['a Stripe-Signature without t=', 'malformed_signature_header', 'hooks.signed', `v1=${signature(now)}`],
    ['signed an hour ago', 'stale_timestamp', 'hooks.signed', `t=${now - 3600},v1=${signature(now - 3600)}`],
    ['signed with another secret', 'signature_mismatch', 'hooks.signed', `t=${now},v1=${'0'.repeat(64)}`],
  ];
  for (const [why, reason, activity, header] of cases) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (header) headers['stripe-signature'] = header;
    const response = await fetch(`${stack.facadeUrl}/BC/hooks/${COMPANY}/${activity}`, {
      method: 'POST',
      headers,
      body,
    });
    t.is(response.status, 401, why);
    t.deepEqual(await response.json(), { error: { code: 'Unauthorized', message: 'Unauthorized' } }, why);
    const requestId = response.headers.get('x-request-id') ?? '';
    await expectOneLine(t, { why, reason, requestId, company: COMPANY, activity }, 'engine');
    const line = refusalLines(requestId)[0] ?? {};
    t.is(line.scheme, 'stripe', why);
    // Only a missing secret needs a command to fix; the caller never sees it.
    t.is(
      line.hint,
      reason === 'hook_secret_missing' ? `flowhook hook-secret set ${COMPANY} hooks.unset` : undefined,
      why,
    );
  }
});

test.after(
  'each process exits 0 on SIGTERM; every reason was provoked, each refused call logged once; no credential or hidden payload reached the logs',
  async (t) => {
    t.deepEqual(await stack.stop(), [0, 0, 0], 'each process exits 0 on SIGTERM');
    const output = stack.output();
    t.true(output.length > 0, 'the processes did log something');

    const provoked = new Set(expectations.map((expected) => expected.reason));
    t.deepEqual([...provoked].sort(), Object.keys(REFUSAL_REASONS).sort());
    const allRefusals = logLines().filter((line) => line.msg === REFUSED_CALL_MESSAGE);
    t.is(allRefusals.length, expectations.length, 'no refusal line beyond one per refused call');

    t.true(sent.length > 20);
    for (const credential of sent)
      t.false(output.includes(credential), `a credential (${credential.length} characters) appears in the logs`);
    t.notRegex(output, /"secret"\s*:\s*"[^"[]/, 'no secret value in structured logs');
    t.false(/Basic [A-Za-z0-9+/=]{20,}/.test(output), 'no Basic credentials in the logs');

    // Facade and engine lines about the traced call carry its request id (the worker's carry the execution id).
    const lines = logLines();
    const aboutTraced = lines.filter(
      (line) =>
        line.name !== 'worker' && (line.executionId === tracedExecutionId || line.requestId === TRACED_REQUEST_ID),
    );
    t.deepEqual([...new Set(aboutTraced.map((line) => line.name))].sort(), ['engine', 'facade']);
    for (const line of aboutTraced) t.is(line.requestId, TRACED_REQUEST_ID, JSON.stringify(line));
    t.true(lines.some((line) => line.name === 'worker' && line.workflowId === tracedExecutionId));

    t.false(
      output.includes(card),
      `the card number is in a process log:\n${output
        .split('\n')
        .filter((line) => line.includes(card))
        .join('\n')}`,
    );
    t.true(output.includes(control), 'without the flag the same failure is logged with its reason');
  },
);
