// The facade over real HTTP, in front of an in-memory WebhookService whose
// behaviour is chosen by the activity (and secret) of each call.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import test from 'ava';
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import {
  InvokeOutcome,
  WebhookService,
  type InvokeRequest,
} from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { createFacade, type ListeningFacade } from '../../facade/app.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import type { WebhookClient } from '../../facade/engine-client.ts';
import { createFacadeLogger } from '../../facade/logger.ts';
import { eventually } from '../support/eventually.ts';

const PUBLIC_URL = 'https://hooks.example.com/bc';
const USER = 'svc-flows';
const ACCESS_KEY = 'Zm9vYmFy-access-key/+=';
const SECRET = 'per-flow-secret-0123456789abcdefgh';
const AUTH = `Basic ${Buffer.from(`${USER}:${ACCESS_KEY}`).toString('base64')}`;
const ODATA_JSON = 'application/json; odata.metadata=minimal';

const calls: InvokeRequest[] = [];
const logLines: string[] = [];
let facade: ListeningFacade;
let base: string;

function engineClient(): Pick<WebhookClient, 'invoke'> {
  const transport = createRouterTransport(({ service }) => {
    service(WebhookService, {
      invoke(request) {
        calls.push(request);
        if (request.secret === 'wrong') throw new ConnectError('Unauthorized', Code.Unauthenticated);
        switch (request.activity) {
          case 'missing':
            throw new ConnectError('No published flow for activity "missing" in company "Acme"', Code.NotFound);
          case 'forbidden':
            throw new ConnectError('Caller "svc-flows" lacks the permission set "FLOW ALL"', Code.PermissionDenied);
          case 'boom':
            throw new ConnectError(
              'The flow failed before it responded: a sleep step stands before the respond step',
              Code.Internal,
            );
          case 'down':
            throw new ConnectError('Temporal is unavailable: connect ECONNREFUSED 10.1.2.3:7233', Code.Unavailable);
          case 'slow':
            throw new ConnectError('deadline exceeded', Code.DeadlineExceeded);
          case 'cut':
            // What connect-node raises when the engine dies mid-call (an HTTP/2 INTERNAL_ERROR reset).
            throw new ConnectError('http/2 stream closed with error code INTERNAL_ERROR (0x2)', Code.Internal);
          case 'cancelled':
            // An HTTP/2 CANCEL reset of the stream: what the facade sees when the engine's process goes away mid-call.
            throw new ConnectError('http/2 stream closed with error code CANCEL (0x8)', Code.Canceled);
          case 'conflict':
            // The engine's own Aborted (a ConflictError) has no cause: not a transport failure.
            throw new ConnectError('the key changed hands while it was being registered; try again', Code.Aborted);
          case 'limited':
            throw new ConnectError(
              'Too many calls for activity "limited" in company "Acme"; retry after 7 s',
              Code.ResourceExhausted,
              { 'retry-after': '7' },
            );
          case 'limited-odd':
            throw new ConnectError('Too many calls', Code.ResourceExhausted, { 'retry-after': 'soon; drop table' });
          case 'reused':
            throw new ConnectError(
              'The idempotency key was already used for a call with another payload',
              Code.AlreadyExists,
            );
          case 'instant':
            return {
              statusCode: 202,
              contentType: 'application/json',
              body: '',
              executionId: 'instant:1',
              defaultResponse: true,
              outcome: InvokeOutcome.INSTANT_RETURN,
            };
          default:
            return {
              statusCode: 200,
              contentType: 'application/json',
              body: request.payloadJson,
              executionId: `${request.activity}:exec-1`,
              outcome: InvokeOutcome.RESPONDED,
            };
        }
      },
    });
  });
  const client = createClient(WebhookService, transport);
  return {
    // A client-side failure that is not a ConnectError: its text must never reach the caller.
    invoke: (request, options) => {
      if (request?.activity === 'crash')
        return Promise.reject(new TypeError('cannot read properties of undefined (db host 10.9.9.9)'));
      // What connect-node raises itself when the engine's socket is reset mid-call: Aborted, never sent by the engine.
      if (request?.activity === 'reset') return Promise.reject(new ConnectError('read ECONNRESET', Code.Aborted));
      return client.invoke(request, options);
    },
  };
}

test.before(async () => {
  const config = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_FACADE_PORT: '0',
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
    FLOWHOOK_PUBLIC_URL: `${PUBLIC_URL}/`,
    FLOWHOOK_MAX_BODY_BYTES: '4096',
  });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  facade = await createFacade({
    config,
    webhookClient: engineClient(),
    logger: createFacadeLogger('debug', sink),
  }).listen();
  base = `http://127.0.0.1:${facade.port}`;
});

test.after.always(async () => {
  await facade?.close();
});

interface Call {
  activity?: unknown;
  secret?: unknown;
  payloadText?: string;
  body?: string;
  company?: string | null;
  auth?: string | null;
  headers?: Record<string, string>;
  path?: string;
  method?: string;
}

/** Calls the endpoint with a fresh request id, so each test finds its own engine calls. */
async function call(options: Call = {}) {
  const requestId = randomUUID();
  const company = options.company === undefined ? 'Acme Ltd.' : options.company;
  const query = company === null ? '' : `?company=${encodeURIComponent(company)}`;
  const body =
    options.body ??
    `{"activity": ${JSON.stringify(options.activity ?? 'echo')}, "secret": ${JSON.stringify(options.secret ?? SECRET)}, "payload": ${options.payloadText ?? '{}'}}`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-request-id': requestId,
    ...options.headers,
  };
  const auth = options.auth === undefined ? AUTH : options.auth;
  if (auth !== null) headers.authorization = auth;
  const response = await fetch(`${base}${options.path ?? '/BC/ODataV4/flowWebhook_Invoke'}${query}`, {
    method: options.method ?? 'POST',
    headers,
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    requestId,
    engineCalls: calls.filter((c) => c.requestId === requestId),
  };
}

/** The facade's `request` log line of a call, once written (when the response has closed). */
function requestLine(requestId: string): Promise<Record<string, unknown> | undefined> {
  const find = () =>
    logLines
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.requestId === requestId && entry.msg === 'request');
  return eventually(find, { intervalMs: 10, what: `the request line of ${requestId}` });
}

function assertODataError(
  t: import('ava').ExecutionContext,
  answer: { status: number; headers: Headers; text: string },
  status: number,
  code: string,
) {
  t.is(answer.status, status, answer.text);
  t.is(answer.headers.get('content-type'), ODATA_JSON);
  t.is(answer.headers.get('odata-version'), '4.0');
  const body = JSON.parse(answer.text);
  t.deepEqual(Object.keys(body), ['error']);
  t.deepEqual(Object.keys(body.error), ['code', 'message']);
  t.is(body.error.code, code);
  t.is(typeof body.error.message, 'string');
  return body.error.message as string;
}

test('a successful call answers 200 with the exact OData envelope and headers', async (t) => {
  const answer = await call({ payloadText: '{"order":{"id":42}}' });
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), ODATA_JSON);
  t.is(answer.headers.get('odata-version'), '4.0');
  t.is(answer.headers.get('x-flowhook-execution-id'), 'echo:exec-1');
  t.is(answer.headers.get('x-flowhook-outcome'), 'responded');
  t.is(answer.headers.get('x-request-id'), answer.requestId);
  t.is(
    answer.text,
    `{"@odata.context":"${PUBLIC_URL}/BC/ODataV4/$metadata#Edm.String","value":"{\\"statusCode\\":200,\\"contentType\\":\\"application/json\\",\\"body\\":\\"{\\\\\\"order\\\\\\":{\\\\\\"id\\\\\\":42}}\\"}"}`,
  );
  t.deepEqual(JSON.parse(JSON.parse(answer.text).value), {
    statusCode: 200,
    contentType: 'application/json',
    body: '{"order":{"id":42}}',
  });
});

test('the payload reaches the engine byte for byte, with the call fields and caller', async (t) => {
  const payload = '{ "z":1.0E+2 ,"big": 123456789012345678901234567890,\n  "s":"caf\\u00e9 {\\"}", "ü":[ ] }';
  const answer = await call({
    payloadText: payload,
    activity: 'Payments.Callback',
    company: 'CRONUS International Ltd. & Co/1',
    headers: { 'idempotency-key': 'order-42' },
  });
  t.is(answer.status, 200);
  t.is(answer.engineCalls.length, 1);
  const request = answer.engineCalls[0]!;
  t.is(request.payloadJson, payload);
  t.is(request.company, 'CRONUS International Ltd. & Co/1');
  t.is(request.activity, 'Payments.Callback');
  t.is(request.secret, SECRET);
  t.is(request.idempotencyKey, 'order-42');
  t.is(request.requestId, answer.requestId);
  const identity = request.caller?.identity;
  t.is(identity?.case, 'basic');
  if (identity?.case === 'basic') t.like(identity.value, { userName: USER, accessKey: ACCESS_KEY });
  t.is(JSON.parse(JSON.parse(answer.text).value).body, payload);
});

test('webhook-id serves as the idempotency key when Idempotency-Key is absent', async (t) => {
  const answer = await call({ headers: { 'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' } });
  t.is(answer.engineCalls[0]?.idempotencyKey, 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W');
  const none = await call();
  t.is(none.engineCalls[0]?.idempotencyKey, '');
});

test('instant return reports its outcome; a charset parameter is accepted', async (t) => {
  const answer = await call({ activity: 'instant', headers: { 'content-type': 'application/json; charset=utf-8' } });
  t.is(answer.status, 200);
  t.is(answer.headers.get('x-flowhook-outcome'), 'instant-return');
  t.deepEqual(JSON.parse(JSON.parse(answer.text).value), {
    statusCode: 202,
    contentType: 'application/json',
    body: '',
  });
});

test('unknown extra top-level members are ignored', async (t) => {
  const answer = await call({
    body: `{"activity":"echo","secret":"${SECRET}","payload":{"a":1},"source":"partner-portal"}`,
  });
  t.is(answer.status, 200);
  t.is(answer.engineCalls[0]?.payloadJson, '{"a":1}');
});

test('a wrong secret answers 401 with exactly "Unauthorized"', async (t) => {
  const answer = await call({ secret: 'wrong' });
  t.is(answer.status, 401);
  t.is(answer.text, 'Unauthorized');
  t.is(answer.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.is(answer.headers.get('www-authenticate'), 'Basic realm="flowhook"');
  t.is(answer.headers.get('x-flowhook-execution-id'), null);
});

test('missing, malformed or Bearer credentials answer 401 without calling the engine', async (t) => {
  for (const auth of [
    null,
    'Basic not-base64!',
    `Basic ${Buffer.from('no-colon').toString('base64')}`,
    'Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig',
    'Negotiate abc',
  ]) {
    const answer = await call({ auth });
    t.is(answer.status, 401, String(auth));
    t.is(answer.text, 'Unauthorized');
    t.is(answer.headers.get('www-authenticate'), 'Basic realm="flowhook"');
    t.is(answer.engineCalls.length, 0);
  }
});

test('engine errors map to OData errors with the engine message', async (t) => {
  const missing = await call({ activity: 'missing' });
  t.is(assertODataError(t, missing, 404, 'NotFound'), 'No published flow for activity "missing" in company "Acme"');
  t.is(missing.headers.get('x-request-id'), missing.requestId);
  t.is(
    assertODataError(t, await call({ activity: 'forbidden' }), 403, 'Forbidden'),
    'Caller "svc-flows" lacks the permission set "FLOW ALL"',
  );
  t.is(
    assertODataError(t, await call({ activity: 'boom' }), 500, 'InternalServerError'),
    'The flow failed before it responded: a sleep step stands before the respond step',
  );
  // The engine's own Aborted is a conflict, not a transport failure.
  t.is(
    assertODataError(t, await call({ activity: 'conflict' }), 409, 'Conflict'),
    'the key changed hands while it was being registered; try again',
  );
});

test('an unavailable engine answers 503 with Retry-After and no internal details', async (t) => {
  for (const activity of ['down', 'slow', 'cut', 'cancelled', 'reset']) {
    const answer = await call({ activity });
    const message = assertODataError(t, answer, 503, 'ServiceUnavailable');
    t.is(answer.headers.get('retry-after'), '5');
    t.false(message.includes('10.1.2.3'));
  }
});

test("a refused call answers 429 with the engine's Retry-After, and 1 when the engine's value is not a number of seconds", async (t) => {
  const limited = await call({ activity: 'limited' });
  t.regex(assertODataError(t, limited, 429, 'TooManyRequests'), /retry after 7 s/);
  t.is(limited.headers.get('retry-after'), '7');
  const odd = await call({ activity: 'limited-odd' });
  assertODataError(t, odd, 429, 'TooManyRequests');
  t.is(odd.headers.get('retry-after'), '1');
});

test('an idempotency key reused with another payload answers 422', async (t) => {
  t.regex(
    assertODataError(t, await call({ activity: 'reused' }), 422, 'UnprocessableEntity'),
    /already used for a call with another payload/,
  );
});

test('an unexpected exception answers 500 with a generic message naming the request id', async (t) => {
  const answer = await call({ activity: 'crash' });
  const message = assertODataError(t, answer, 500, 'InternalServerError');
  t.false(message.includes('10.9.9.9'));
  t.false(message.includes('undefined'));
  t.true(message.includes(answer.requestId));
});

test('malformed JSON answers 400', async (t) => {
  for (const body of [
    '{"activity": "echo", "secret": "x", "payload": {',
    'not json',
    `{"activity":"echo","secret":"${SECRET}",}`,
  ]) {
    const answer = await call({ body });
    const message = assertODataError(t, answer, 400, 'BadRequest');
    t.regex(message, /^Malformed JSON/);
    t.false(message.includes(SECRET));
    t.is(answer.engineCalls.length, 0);
  }
});

test('a body nested deeper than 100 levels answers 400; 100 levels are accepted', async (t) => {
  const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
  // The body object itself is level 1, so its payload may nest 99 more.
  const accepted = await call({ body: `{"activity":"echo","secret":"${SECRET}","payload":${nested(99)}}` });
  t.is(accepted.status, 200);
  const refused = await call({ body: `{"activity":"echo","secret":"${SECRET}","payload":${nested(100)}}` });
  t.regex(assertODataError(t, refused, 400, 'BadRequest'), /deeper than 100 levels/);
  t.is(refused.engineCalls.length, 0);
});

test('missing or mistyped fields answer 400 naming the field', async (t) => {
  const cases: [string, RegExp][] = [
    [`{"secret":"${SECRET}","payload":{}}`, /^activity /],
    [`{"activity":"","secret":"${SECRET}","payload":{}}`, /^activity must be a non-empty string/],
    [`{"activity":7,"secret":"${SECRET}","payload":{}}`, /^activity must be a non-empty string/],
    ['{"activity":"echo","payload":{}}', /^secret /],
    ['{"activity":"echo","secret":null,"payload":{}}', /^secret must be a non-empty string/],
    [`{"activity":"echo","secret":"${SECRET}"}`, /^payload is required/],
    [`{"activity":"echo","secret":"${SECRET}","payload":[1]}`, /^payload must be a JSON object/],
    [`{"activity":"echo","secret":"${SECRET}","payload":null}`, /^payload must be a JSON object/],
    [`{"activity":"echo","secret":"${SECRET}","payload":"{}"}`, /^payload must be a JSON object/],
    [`[{"activity":"echo","secret":"${SECRET}","payload":{}}]`, /must be a JSON object/],
    [`{"activity":"echo","secret":"${SECRET}","payload":{"a":1},"payload":{"a":2}}`, /^duplicate member "payload"/],
    [`{"activity":"echo","activity":"other","secret":"${SECRET}","payload":{}}`, /^duplicate member "activity"/],
  ];
  for (const [body, expected] of cases) {
    const answer = await call({ body });
    t.regex(assertODataError(t, answer, 400, 'BadRequest'), expected, body);
    t.is(answer.engineCalls.length, 0);
  }
});

test('a body that is not application/json answers 415', async (t) => {
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json']) {
    const answer = await call({ headers: { 'content-type': type } });
    assertODataError(t, answer, 415, 'UnsupportedMediaType');
    t.is(answer.engineCalls.length, 0);
  }
});

test('a body over the limit answers 413', async (t) => {
  const answer = await call({ payloadText: `{"filler":"${'x'.repeat(5000)}"}` });
  t.regex(assertODataError(t, answer, 413, 'PayloadTooLarge'), /4096 bytes/);
  t.is(answer.engineCalls.length, 0);
});

test('a missing or empty company answers 400', async (t) => {
  for (const company of [null, '']) {
    const answer = await call({ company });
    t.regex(assertODataError(t, answer, 400, 'BadRequest'), /company/);
    t.is(answer.engineCalls.length, 0);
  }
});

test('a wrong method on a known path answers 405 with Allow', async (t) => {
  const getInvoke = await fetch(`${base}/BC/ODataV4/flowWebhook_Invoke?company=Acme`, {
    headers: { authorization: AUTH },
  });
  const text = await getInvoke.text();
  assertODataError(t, { status: getInvoke.status, headers: getInvoke.headers, text }, 405, 'MethodNotAllowed');
  t.is(getInvoke.headers.get('allow'), 'POST');
  const postMetadata = await call({ path: '/BC/ODataV4/$metadata', company: null });
  assertODataError(t, postMetadata, 405, 'MethodNotAllowed');
  t.deepEqual(postMetadata.headers.get('allow')?.split(/,\s*/).sort(), ['GET', 'HEAD']);
});

test('an unknown instance or path answers 404 in the OData error shape', async (t) => {
  const instance = await call({ path: '/NAV/ODataV4/flowWebhook_Invoke' });
  t.regex(assertODataError(t, instance, 404, 'NotFound'), /NAV/);
  t.is(instance.engineCalls.length, 0);
  assertODataError(t, await call({ path: '/BC/ODataV4/otherWebhook_Invoke' }), 404, 'NotFound');
  const root = await fetch(`${base}/`);
  assertODataError(t, { status: root.status, headers: root.headers, text: await root.text() }, 404, 'NotFound');
});

test('the instance segment matches case-insensitively', async (t) => {
  const answer = await call({ path: '/bc/ODataV4/flowWebhook_Invoke' });
  t.is(answer.status, 200);
  t.true(JSON.parse(answer.text)['@odata.context'].startsWith(`${PUBLIC_URL}/BC/`));
});

test('$metadata answers CSDL declaring the action', async (t) => {
  const response = await fetch(`${base}/BC/ODataV4/$metadata`);
  const xml = await response.text();
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'application/xml');
  // Edm.Untyped (the payload) is CSDL 4.01: document and header say so.
  t.is(response.headers.get('odata-version'), '4.01');
  t.true(xml.startsWith('<?xml'));
  t.regex(xml, /<edmx:Edmx Version="4\.01"/);
  t.regex(xml, /<Action Name="flowWebhook_Invoke" IsBound="false">/);
  for (const name of ['activity', 'secret']) t.regex(xml, new RegExp(`<Parameter Name="${name}" Type="Edm.String"`));
  t.regex(xml, /<Parameter Name="payload" Type="Edm.Untyped" Nullable="false" \/>/);
  t.regex(xml, /<ReturnType Type="Edm.String" \/>/);
  t.regex(
    xml,
    /<EntityContainer Name="NAV">\s*<ActionImport Name="flowWebhook_Invoke" Action="NAV.flowWebhook_Invoke" \/>/,
  );
  const unknown = await fetch(`${base}/XX/ODataV4/$metadata`);
  t.is(unknown.status, 404);
  await unknown.text();
});

test('an unsafe caller request id is replaced by a generated one', async (t) => {
  const answer = await call({ headers: { 'x-request-id': 'has spaces and "quotes"' } });
  t.regex(answer.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('logs never hold the secret, the access key, the Authorization header or the payload', async (t) => {
  const marker = `payload-marker-${randomUUID()}`;
  const answers = [
    await call({ payloadText: `{"m":"${marker}"}` }),
    await call({ activity: 'crash', payloadText: `{"m":"${marker}"}` }),
    await call({ secret: 'wrong', payloadText: `{"m":"${marker}"}` }),
    await call({ body: `{"activity":"echo","secret":"${SECRET}","payload":{"m":"${marker}"` }),
  ];
  // The request line is written when the response closes.
  await Promise.all(answers.map((answer) => requestLine(answer.requestId)));
  const logs = logLines.join('');
  t.true(logs.includes('"msg":"request"'));
  for (const forbidden of [SECRET, ACCESS_KEY, AUTH, AUTH.slice(6), marker])
    t.false(logs.includes(forbidden), forbidden);
});

test('one request log line carries method, path, status, duration, request id and execution id', async (t) => {
  const answer = await call();
  const line = await requestLine(answer.requestId);
  t.like(line, {
    method: 'POST',
    path: '/BC/ODataV4/flowWebhook_Invoke',
    status: 200,
    executionId: 'echo:exec-1',
    level: 30,
  });
  t.is(typeof line?.ms, 'number');
});
