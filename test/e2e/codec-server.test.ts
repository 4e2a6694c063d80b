// The codec server end to end: a real doNotLogPayload execution's history
// (read with the Temporal CLI, as the UI server hands it to the browser) is
// ciphertext; POSTed to the engine's codec server exactly as the Temporal UI
// posts it (preflight, Origin, X-Namespace, JSON with base64 bytes, the
// session cookie when "include cross-origin credentials" is on, or a Bearer
// token), it comes back readable — for an admin operator only.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import test from 'ava';
import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import pino from 'pino';
import { readCodecServerConfig } from '../../engine/edges/codec/codec-config.ts';
import { readSettings } from '../../common/configuration/read-settings.ts';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine } from '../../engine/main.ts';
import { createAdminClient } from '../../bin/cli/admin-client.ts';
import { equalTo, eventually } from '../support/eventually.ts';
import { startCodecServer } from '../../engine/edges/codec/codec-server.ts';
import { readEngineServerTls } from '../../engine/edges/rpc/engine-tls.ts';
import { createServiceAccountDirectory } from '../../engine/domain/callers/service-account-directory.ts';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oauth-provider.ts';
import { createTestCertificates } from '../support/test-certificates.ts';
import { startStack, testInfrastructure, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';
import { readPayloadKeyring } from '../../workflows/codec/payload-keyring.ts';

/** The Temporal UI's origin the codec allows (no UI runs here: the requests are made as it makes them). */
const UI = 'http://127.0.0.1:8233';
const NAMESPACE = 'default';

interface WirePayload {
  metadata?: Record<string, string>;
  data?: string;
}

let stack: TestStack;
let tenant: Tenant;
let codecUrl: string;
let secret: string;
let identityProvider: TestAuthorizationServer;
const OPERATORS = 'flowhook-operators';
const AUDIENCE = 'api://flowhook-codec';

test.before(async () => {
  identityProvider = await startAuthorizationServer({
    clients: [{ clientId: 'some-app', clientSecret: 'some-app-secret' }],
    resources: [AUDIENCE],
  });
  stack = await startStack({
    env: {
      FLOWHOOK_CODEC_PORT: '0',
      FLOWHOOK_CODEC_ALLOWED_ORIGINS: UI,
      FLOWHOOK_CODEC_OAUTH_ISSUER: identityProvider.issuer,
      FLOWHOOK_CODEC_OAUTH_AUDIENCE: AUDIENCE,
      FLOWHOOK_CODEC_OAUTH_GROUP: OPERATORS,
    },
  });
  codecUrl = stack.engine.codec!.url;
  tenant = await createTenant(stack);
  secret = (
    await deployFlow(
      stack,
      flow(
        tenant.company,
        'hidden',
        {
          activity: 'cards.hidden',
          doNotLogPayload: true,
          responseMode: 'WAIT_FOR_RESPONSE_STEP',
          syncTimeoutSeconds: 10,
        },
        [{ respond: { description: 'Acknowledge', statusCode: 200, body: '${ {"ok": true} }' } }],
      ),
    )
  ).secret;
});
test.after.always(async () => {
  await stack?.close();
  await identityProvider?.close();
});

/** One execution of the doNotLogPayload flow, and the input payloads of its start event as `temporal workflow show --output json` prints them. */
async function hiddenExecution(): Promise<{ card: string; workflowId: string; input: WirePayload[] }> {
  const card = `CARD-${randomBytes(8).toString('hex')}`;
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'cards.hidden',
    secret,
    auth: tenant.auth,
    payloadText: `{"card": "${card}"}`,
  });
  if (answer.status !== 200 || !answer.executionId) throw new Error(`the call failed: ${answer.status} ${answer.text}`);
  await stack.engine.client.workflow.getHandle(answer.executionId).result();
  const history = JSON.parse(
    await temporalCli(['workflow', 'show', '--workflow-id', answer.executionId, '--output', 'json']),
  ) as {
    events: { workflowExecutionStartedEventAttributes?: { input: { payloads: WirePayload[] } } }[];
  };
  const started = history.events.find(
    (event) => event.workflowExecutionStartedEventAttributes,
  )!.workflowExecutionStartedEventAttributes!;
  return { card, workflowId: answer.executionId, input: started.input.payloads };
}

async function temporalCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { temporalAddress, temporalCli: cli } = testInfrastructure();
  const { stdout } = await promisify(execFile)(cli, [...args, '--address', temporalAddress], {
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

const text = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('utf8');

/** What the UI's codeServerRequest sends; `cookie` stands for the browser's cookie jar under credentials: 'include'. */
function codecCall(
  operation: 'decode' | 'encode',
  payloads: unknown,
  options: { origin?: string; authorization?: string; cookie?: string; body?: string; contentType?: string } = {},
) {
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
    'x-namespace': NAMESPACE,
  };
  if (options.origin !== undefined) headers.origin = options.origin;
  if (options.authorization) headers.authorization = options.authorization;
  if (options.cookie) headers.cookie = options.cookie;
  return fetch(`${codecUrl}/${operation}?preserveStorageRefs=true`, {
    method: 'POST',
    headers,
    body: options.body ?? JSON.stringify({ payloads }),
  });
}

async function signIn(token: string, origin = codecUrl): Promise<Response> {
  return fetch(`${codecUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
}

const sessionCookie = (response: Response) =>
  /^(flowhook_codec_session=[^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];

test("the history holds ciphertext; the UI's preflight and decode with an admin token return the payload", async (t) => {
  const { card, input } = await hiddenExecution();
  t.is(text(input[0]!.metadata!.encoding), 'binary/encrypted');
  t.false(JSON.stringify(input).includes(card) || text(input[0]!.data).includes(card), 'ciphertext in history');

  const preflight = await fetch(`${codecUrl}/decode?preserveStorageRefs=true`, {
    method: 'OPTIONS',
    headers: {
      origin: UI,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-namespace,authorization',
    },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), UI);
  t.is(preflight.headers.get('access-control-allow-credentials'), 'true');
  t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /x-namespace/);
  t.regex(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);

  for (const token of [stack.adminToken, stack.tokens.admin]) {
    const response = await codecCall('decode', input, { origin: UI, authorization: `Bearer ${token}` });
    t.is(response.status, 200);
    t.is(response.headers.get('access-control-allow-origin'), UI);
    const { payloads } = (await response.json()) as { payloads: WirePayload[] };
    t.is(payloads.length, input.length);
    t.is(text(payloads[0]!.metadata!.encoding), 'json/plain');
    t.true(text(payloads[0]!.data).includes(card), 'the decoded input carries the payload');
  }
});

test('no credentials, or an invoke or records token, are refused with how to sign in', async (t) => {
  const { card, input } = await hiddenExecution();
  for (const authorization of [
    undefined,
    `Bearer ${stack.tokens.records}`,
    `Bearer ${stack.tokens.internal}`,
    `Bearer ${stack.serviceToken}`,
    'Bearer not-a-token',
    `Basic ${Buffer.from(`x:${stack.adminToken}`).toString('base64')}`,
  ]) {
    const response = await codecCall('decode', input, { origin: UI, authorization });
    t.is(response.status, 401, authorization?.slice(0, 12));
    // CORS headers on the refusal too, so the UI sees a 401 rather than a network error.
    t.is(response.headers.get('access-control-allow-origin'), UI);
    const body = await response.text();
    t.regex(body, /\/login/);
    t.false(body.includes(card));
  }
});

test('another origin is refused: no CORS headers on its preflight, 403 even with an admin token', async (t) => {
  const { input } = await hiddenExecution();
  const preflight = await fetch(`${codecUrl}/decode`, {
    method: 'OPTIONS',
    headers: { origin: 'http://127.0.0.1:9999', 'access-control-request-method': 'POST' },
  });
  t.is(preflight.status, 403);
  t.is(preflight.headers.get('access-control-allow-origin'), null);
  const response = await codecCall('decode', input, {
    origin: 'https://evil.example',
    authorization: `Bearer ${stack.adminToken}`,
  });
  t.is(response.status, 403);
  t.is(response.headers.get('access-control-allow-origin'), null);
  t.regex(await response.text(), /FLOWHOOK_CODEC_ALLOWED_ORIGINS/);
});

test('a session from the login page decodes for the UI origin only; sign-out and a disabled account end it', async (t) => {
  const { card, input } = await hiddenExecution();
  const page = await fetch(`${codecUrl}/login`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  t.regex(await page.text(), /Include cross-origin credentials/);

  // Refused sign-ins set no cookie: another site's form, a records token.
  t.is((await signIn(stack.adminToken, 'https://evil.example')).status, 403);
  const recordsSignIn = await signIn(stack.tokens.records);
  t.is(recordsSignIn.status, 401);
  t.is(sessionCookie(recordsSignIn), undefined);

  const operator = `operator-${randomBytes(3).toString('hex')}`;
  const { token: operatorToken } = await stack.admin.createServiceAccount({ name: operator, scope: 'admin' });
  const signedIn = await signIn(operatorToken);
  t.is(signedIn.status, 303);
  const setCookie = signedIn.headers.get('set-cookie') ?? '';
  t.regex(setCookie, /HttpOnly/);
  t.regex(setCookie, /SameSite=Strict/);
  t.false(setCookie.includes(operatorToken));
  const cookie = sessionCookie(signedIn)!;

  const decoded = await codecCall('decode', input, { origin: UI, cookie });
  t.is(decoded.status, 200);
  t.true(text(((await decoded.json()) as { payloads: WirePayload[] }).payloads[0]!.data).includes(card));
  t.true(
    (await (await fetch(`${codecUrl}/login`, { headers: { cookie } })).text()).includes(
      `Signed in as <b>${operator}</b>`,
    ),
  );
  // The cookie counts only with an allowed Origin: not from another page, not without one.
  t.is((await codecCall('decode', input, { origin: 'http://127.0.0.1:9999', cookie })).status, 403);
  t.is((await codecCall('decode', input, { cookie })).status, 401);

  const other = sessionCookie(await signIn(operatorToken))!;
  const signedOut = await fetch(`${codecUrl}/logout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: codecUrl, cookie },
  });
  t.is(signedOut.status, 303);
  t.regex(signedOut.headers.get('set-cookie') ?? '', /Max-Age=0/);
  t.is((await codecCall('decode', input, { origin: UI, cookie })).status, 401);

  t.is((await codecCall('decode', input, { origin: UI, cookie: other })).status, 200);
  await stack.admin.setServiceAccountState({ name: operator, enabled: false });
  // The change feed tells the directory at once; allow it a moment.
  const status = await eventually(
    async () => (await codecCall('decode', input, { origin: UI, cookie: other })).status,
    {
      until: (answer) => answer !== 200,
      what: "the disabled account's session refused",
    },
  );
  t.is(status, 401);
});

test('a session ends when its token is rotated through another engine, or its account is deleted and made again under the same name', async (t) => {
  const { input } = await hiddenExecution();
  const otherEngine = await runEngine(readEngineConfig({ ...stack.env, FLOWHOOK_ENGINE_PORT: '0' }));
  t.teardown(() => otherEngine.close());
  const other = createAdminClient({ engineUrl: `http://127.0.0.1:${otherEngine.port}`, adminToken: stack.adminToken });
  const decode = (cookie: string) => async () => (await codecCall('decode', input, { origin: UI, cookie })).status;

  const operator = `rotated-${randomBytes(3).toString('hex')}`;
  const { token } = await stack.admin.createServiceAccount({ name: operator, scope: 'admin' });
  const rotatedAway = sessionCookie(await signIn(token))!;
  t.is(await decode(rotatedAway)(), 200);
  const { token: newToken } = await other.rotateServiceAccountToken({ name: operator });
  t.is(
    await eventually(decode(rotatedAway), { until: equalTo(401) }),
    401,
    "the rotated token's session still decodes",
  );
  // The account is as it was, and a sign-in with its new token works.
  const current = sessionCookie(await signIn(newToken))!;
  t.is(await decode(current)(), 200);

  // Deleted and made again under the same name and scope before this engine looks: another token, another account.
  await other.deleteServiceAccount({ name: operator });
  await other.createServiceAccount({ name: operator, scope: 'admin' });
  t.is(
    await eventually(decode(current), { until: equalTo(401) }),
    401,
    'the session outlived its account in a new one of the same name',
  );
});

test('encode re-encrypts what the codec encrypts and passes the rest through; decode of that round-trips', async (t) => {
  const { card, input } = await hiddenExecution();
  const authorization = `Bearer ${stack.adminToken}`;
  const plain = (
    (await (await codecCall('decode', input, { origin: UI, authorization })).json()) as { payloads: WirePayload[] }
  ).payloads;
  // What the UI encodes for a signal it sends: plain JSON, no mark — left as it is.
  const signalInput = {
    metadata: { encoding: Buffer.from('json/plain').toString('base64') },
    data: Buffer.from('{"card":"typed in the UI"}').toString('base64'),
  };
  const encoded = await codecCall('encode', [...plain, signalInput], { origin: UI, authorization });
  t.is(encoded.status, 200);
  const { payloads } = (await encoded.json()) as { payloads: WirePayload[] };
  t.is(text(payloads[0]!.metadata!.encoding), 'binary/encrypted');
  t.not(payloads[0]!.data, input[0]!.data, 'a fresh nonce');
  t.false(text(payloads[0]!.data).includes(card));
  t.deepEqual(payloads[1], signalInput);
  const again = (
    (await (await codecCall('decode', payloads, { origin: UI, authorization })).json()) as { payloads: WirePayload[] }
  ).payloads;
  t.deepEqual(again, [...plain, signalInput]);
});

test('malformed requests get 400, 413, 415 or 422 with a message, never a payload', async (t) => {
  const { card, input } = await hiddenExecution();
  const authorization = `Bearer ${stack.adminToken}`;
  const cases: [number, Parameters<typeof codecCall>[2], RegExp][] = [
    [400, { body: '{"payloads": [' }, /must be JSON/],
    [400, { body: '{"payloads": "x"}' }, /"payloads" array/],
    [400, { body: '[]' }, /"payloads" array/],
    [
      400,
      { body: JSON.stringify({ payloads: [{ metadata: { encoding: 'not base64!' } }] }) },
      /payloads\[0\]\.metadata\.encoding must be a base64 string/,
    ],
    [400, { body: JSON.stringify({ payloads: [42] }) }, /payloads\[0\] must be an object/],
    [415, { contentType: 'text/plain' }, /application\/json/],
    [413, { body: JSON.stringify({ payloads: [{ data: 'A'.repeat(9 * 1024 * 1024) }] }) }, /larger than/],
  ];
  for (const [status, options, message] of cases) {
    const response = await codecCall('decode', input, { origin: UI, authorization, ...options });
    t.is(response.status, status, String(message));
    t.regex(((await response.json()) as { message: string }).message, message);
  }
  const data = Buffer.from(input[0]!.data!, 'base64');
  data[20]! ^= 1;
  const tampered = await codecCall('decode', [{ ...input[0], data: data.toString('base64') }], {
    origin: UI,
    authorization,
  });
  t.is(tampered.status, 422);
  const body = await tampered.text();
  t.regex(body, /cannot be decrypted/);
  t.false(body.includes(card));
  t.is((await fetch(`${codecUrl}/download`, { method: 'POST', headers: { authorization } })).status, 404);
  t.is((await fetch(`${codecUrl}/decode`, { method: 'GET', headers: { authorization } })).status, 405);
});

test('the Temporal CLI reads the history through the codec server (TEMPORAL_CODEC_AUTH keeps the token off the command line)', async (t) => {
  const { card, workflowId } = await hiddenExecution();
  const shown = await temporalCli(
    ['workflow', 'show', '--workflow-id', workflowId, '--output', 'json', '--codec-endpoint', codecUrl],
    {
      ...process.env,
      TEMPORAL_CODEC_AUTH: `Bearer ${stack.adminToken}`,
    },
  );
  t.true(shown.includes(card) || decodedData(shown).includes(card), 'decoded through the codec');
  // The CLI's endpoint templating: …/{namespace}/decode.
  const templated = await temporalCli(
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      '--output',
      'json',
      '--codec-endpoint',
      `${codecUrl}/{namespace}`,
    ],
    {
      ...process.env,
      TEMPORAL_CODEC_AUTH: `Bearer ${stack.tokens.admin}`,
    },
  );
  t.true(templated.includes(card) || decodedData(templated).includes(card), 'decoded through /{namespace}/decode');
  t.false((await temporalCli(['workflow', 'show', '--workflow-id', workflowId, '--output', 'json'])).includes(card));
});

/** `workflow show --output json` prints payload data base64: decode every `data` field. */
function decodedData(json: string): string {
  const found: string[] = [];
  JSON.parse(json, (key, value) => {
    if (key === 'data' && typeof value === 'string') found.push(text(value));
    return value;
  });
  return found.join('\n');
}

/** An operator's access token as the identity provider behind a Temporal UI with login would issue it. */
function operatorToken(
  claims: Record<string, unknown>,
  options: { key?: CryptoKey; audience?: string; expires?: string } = {},
): Promise<string> {
  return new SignJWT({ preferred_username: 'ada', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: identityProvider.kid })
    .setIssuer(identityProvider.issuer)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(options.expires ?? '5m')
    .sign(options.key ?? identityProvider.privateKey);
}

test("an OAuth access token passed by the UI decodes when it names the operator group, verified against the issuer's keys", async (t) => {
  const { card, input } = await hiddenExecution();
  const decoded = await codecCall('decode', input, {
    origin: UI,
    authorization: `Bearer ${await operatorToken({ groups: ['staff', OPERATORS] })}`,
  });
  t.is(decoded.status, 200);
  t.true(text(((await decoded.json()) as { payloads: WirePayload[] }).payloads[0]!.data).includes(card));

  const { privateKey: otherKey } = await generateKeyPair('RS256');
  const refused = [
    await operatorToken({ groups: ['staff'] }),
    await operatorToken({}),
    await operatorToken({ groups: [OPERATORS] }, { audience: 'api://another' }),
    await operatorToken({ groups: [OPERATORS] }, { expires: '-5m' }),
    await operatorToken({ groups: [OPERATORS] }, { key: otherKey }),
    // A real token of the same issuer for another application: no operator group.
    await identityProvider.token({ clientId: 'some-app', clientSecret: 'some-app-secret' }),
  ];
  for (const [index, token] of refused.entries()) {
    const response = await codecCall('decode', input, { origin: UI, authorization: `Bearer ${token}` });
    t.is(response.status, 401, `token ${index}`);
    t.regex(
      ((await response.json()) as { message: string }).message,
      new RegExp(`access token of group "${OPERATORS}"`),
    );
  }
});

test("with the engine's certificate the codec server serves HTTPS, and its session cookie is Secure", async (t) => {
  const { card, input } = await hiddenExecution();
  const certificates = await createTestCertificates();
  const tls = readEngineServerTls({
    FLOWHOOK_ENGINE_TLS_CERT: certificates.server.cert,
    FLOWHOOK_ENGINE_TLS_KEY: certificates.server.key,
  });
  // The engine's own parts on the stack's database: the codec server as runEngine builds it, with TLS.
  const codec = await startCodecServer({
    config: readCodecServerConfig(
      readSettings({ FLOWHOOK_CODEC_PORT: '0', FLOWHOOK_CODEC_ALLOWED_ORIGINS: UI }, 'engine'),
      { tls, insecure: false },
    )!,
    payloadKeys: readPayloadKeyring(stack.env)!,
    accounts: createServiceAccountDirectory(stack.engine.orm, undefined, stack.adminToken),
    logger: pino({ level: 'silent' }),
  });
  try {
    t.regex(codec.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = readFileSync(certificates.serverCa);
    const call = (path: string, headers: Record<string, string>, body: string) =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
        (resolve, reject) => {
          const request = httpsRequest(
            { host: '127.0.0.1', servername: 'localhost', port: codec.port, path, method: 'POST', ca, headers },
            (response) => {
              let text = '';
              response.on('data', (chunk: Buffer) => void (text += chunk.toString()));
              response.on('end', () =>
                resolve({ status: response.statusCode!, headers: response.headers, body: text }),
              );
            },
          );
          request.on('error', reject);
          request.end(body);
        },
      );
    const decoded = await call(
      '/decode',
      {
        origin: UI,
        'content-type': 'application/json',
        'x-namespace': NAMESPACE,
        authorization: `Bearer ${stack.tokens.admin}`,
      },
      JSON.stringify({ payloads: input }),
    );
    t.is(decoded.status, 200);
    t.true(text((JSON.parse(decoded.body) as { payloads: WirePayload[] }).payloads[0]!.data).includes(card));
    const signedIn = await call(
      '/login',
      {
        origin: `https://localhost:${codec.port}`,
        host: `localhost:${codec.port}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      new URLSearchParams({ token: stack.adminToken }).toString(),
    );
    t.is(signedIn.status, 303);
    t.regex(String(signedIn.headers['set-cookie']), /; Secure/);
  } finally {
    await codec.close();
    await certificates.remove();
  }
});
