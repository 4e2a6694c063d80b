// The waitForCallback routes' facade half over real HTTP, in front of an
// in-memory WebhookService: POST /{instance}/callbacks/{token} (the token is
// the credential; exact bytes and every header reach the engine; plain JSON
// answers and errors; the token never in a log line or a metric) and POST
// /{instance}/ODataV4/flowWebhook_Resume (the caller chain of the webhook
// call, an OData answer naming the resumed execution), and $metadata's action.
import { Writable } from 'node:stream';
import test from 'ava';
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import {
  WebhookService,
  type DeliverCallbackRequest,
  type ResumeCallbackRequest,
} from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { createFacade, type ListeningFacade } from '../../facade/app.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { createFacadeLogger } from '../../facade/logger.ts';
import { createFacadeMetrics } from '../../facade/metrics/facade-metrics.ts';
import { loggablePath } from '../../facade/callbacks-route.ts';
import { actionImportSignature, checkCsdl } from '../support/csdl-check.ts';

const MAX_BODY_BYTES = 4096;
const PUBLIC_URL = 'https://hooks.example.com';
const AUTH = `Basic ${Buffer.from('svc-flows:access-key').toString('base64')}`;
const TOKEN = 'Q2FsbGJhY2tUb2tlbk9mRm9ydHlUaHJlZUNoYXJhY3Q';
const deliveries: DeliverCallbackRequest[] = [];
const resumes: ResumeCallbackRequest[] = [];
const logLines: string[] = [];
let facade: ListeningFacade;
let base: string;

/** The engine's answer is chosen by the token (callbacks) or the key (resumes). */
function answerFor(choice: string) {
  switch (choice) {
    case 'unknown':
      throw new ConnectError('No callback waits at this URL', Code.NotFound);
    case 'used':
      throw new ConnectError('This callback URL has already been used', Code.FailedPrecondition);
    case 'binary':
      throw new ConnectError('callback bodies must be UTF-8 text', Code.InvalidArgument);
    case 'down':
      throw new ConnectError('Temporal is unavailable: connect ECONNREFUSED 10.1.2.3:7233', Code.Unavailable);
    case 'refused':
      throw new ConnectError('Unauthorized', Code.Unauthenticated);
    case 'repeated':
      return { statusCode: 200, repeated: true };
    default:
      return { statusCode: 202, repeated: false };
  }
}

const facadeMetrics = createFacadeMetrics(undefined);

test.before(async () => {
  const transport = createRouterTransport(({ service }) => {
    service(WebhookService, {
      checkCaller() {
        return {};
      },
      deliverCallback(request) {
        deliveries.push(request);
        return answerFor(request.token.startsWith(TOKEN.slice(0, 10)) ? 'ok' : request.token);
      },
      resumeCallback(request) {
        resumes.push(request);
        return { ...answerFor(request.key), executionId: 'orders.ship:0f8fad5b-d9cb-469f-a165-70867728950e' };
      },
    });
  });
  const config = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_FACADE_PORT: '0',
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
    FLOWHOOK_PUBLIC_URL: PUBLIC_URL,
    FLOWHOOK_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
  });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  facade = await createFacade({
    config,
    webhookClient: createClient(WebhookService, transport),
    logger: createFacadeLogger('debug', sink),
    metrics: facadeMetrics,
  }).listen();
  base = `http://127.0.0.1:${facade.port}`;
});
test.after.always(async () => {
  await facade?.close();
});

const callback = (
  token: string,
  body: string | Buffer | undefined,
  headers: Record<string, string> = {},
  method = 'POST',
  instance = 'BC',
) => fetch(`${base}/${instance}/callbacks/${token}`, { method, headers, body });

test.serial(
  'a callback: the token, exact bytes and every header reach the engine; the answer is the step status with {"received":true}',
  async (t) => {
    const body = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0x0d, 0x0a]);
    const response = await callback(TOKEN, body, {
      'Content-Type': 'application/json',
      'X-PSP-Signature': 'sig',
      Authorization: 'Bearer for-the-engine-to-drop',
      'x-request-id': 'req-callback-1',
    });
    t.is(response.status, 202);
    t.is(response.headers.get('content-type'), 'application/json; charset=utf-8');
    t.deepEqual(await response.json(), { received: true });
    t.is(response.headers.get('x-flowhook-callback-repeated'), null);
    t.is(response.headers.get('odata-version'), null);
    const request = deliveries.at(-1)!;
    t.is(request.token, TOKEN);
    t.is(request.requestId, 'req-callback-1');
    t.true(Buffer.from(request.body).equals(body));
    t.true(request.headers.some((header) => header.name === 'x-psp-signature' && header.value === 'sig'));
    t.true(
      request.headers.some((header) => header.name === 'authorization'),
      'no Authorization is read by the facade: the engine filters',
    );
    t.true(request.headers.every((header) => header.name === header.name.toLowerCase()));
  },
);

test.serial('a retried delivery of the accepted body says so in x-flowhook-callback-repeated', async (t) => {
  const response = await callback('repeated', '{}');
  t.is(response.status, 200);
  t.is(response.headers.get('x-flowhook-callback-repeated'), 'true');
  t.deepEqual(await response.json(), { received: true });
});

test.serial(
  'refusals leave in the plain JSON shape: 404, 409 for a used URL, 400, 503 with Retry-After and no transport details',
  async (t) => {
    const cases: [string, number, string, string][] = [
      ['unknown', 404, 'NotFound', 'No callback waits at this URL'],
      ['used', 409, 'Conflict', 'This callback URL has already been used'],
      ['binary', 400, 'BadRequest', 'callback bodies must be UTF-8 text'],
      ['down', 503, 'ServiceUnavailable', 'The service is temporarily unavailable; retry later'],
    ];
    for (const [token, status, code, message] of cases) {
      const response = await callback(token, '{}', { 'content-type': 'application/json' });
      t.is(response.status, status, token);
      t.is(response.headers.get('content-type'), 'application/json; charset=utf-8', token);
      t.deepEqual(await response.json(), { error: { code, message } }, token);
      t.is(response.headers.get('odata-version'), null, token);
      t.is(response.headers.get('www-authenticate'), null, token);
      if (status === 503) t.regex(response.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    }
  },
);

test.serial(
  '405 naming POST for other methods, 404 for another instance or path, 413 past the body limit: none reaches the engine',
  async (t) => {
    const before = deliveries.length;
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const response = await callback(TOKEN, method === 'GET' || method === 'OPTIONS' ? undefined : 'x', {}, method);
      t.is(response.status, 405, method);
      t.is(response.headers.get('allow'), 'POST', method);
      t.is(((await response.json()) as { error: { code: string } }).error.code, 'MethodNotAllowed', method);
    }
    const otherInstance = await callback(TOKEN, '{}', {}, 'POST', 'XX');
    t.is(otherInstance.status, 404);
    t.is(otherInstance.headers.get('content-type'), 'application/json; charset=utf-8');
    for (const path of ['/BC/callbacks', `/BC/callbacks/${TOKEN}/more`]) {
      const response = await fetch(`${base}${path}`, { method: 'POST', body: '{}' });
      t.is(response.status, 404, path);
      t.is(response.headers.get('content-type'), 'application/json; charset=utf-8', path);
    }
    const tooLarge = await callback(TOKEN, Buffer.alloc(MAX_BODY_BYTES + 1, 0x61));
    t.is(tooLarge.status, 413);
    t.is(deliveries.length, before);
  },
);

test.serial('the token is in no log line and no metric label', async (t) => {
  await callback(TOKEN, '{}');
  await callback(TOKEN, undefined, {}, 'GET');
  const lines = logLines.join('');
  t.false(lines.includes(TOKEN));
  t.false(lines.includes(TOKEN.slice(0, 20)));
  t.true(lines.includes('"path":"/BC/callbacks/…"'));
  // What the facade's metrics port serves (the public port answers /metrics only with the token).
  const metrics = await facadeMetrics.registry.text();
  t.regex(metrics, /flowhook_facade_http_requests_total\{route="callbacks",status="202"\} [1-9]/);
  t.regex(metrics, /flowhook_facade_http_requests_total\{route="callbacks",status="405"\} [1-9]/);
  t.false(metrics.includes(TOKEN));
});

test('loggablePath hides whatever follows /callbacks/, in any instance and case', (t) => {
  t.is(loggablePath(`/BC/callbacks/${TOKEN}`), '/BC/callbacks/…');
  t.is(loggablePath(`/bc/CALLBACKS/${TOKEN}/x/y`), '/bc/CALLBACKS/…');
  t.is(loggablePath('/BC/callbacks'), '/BC/callbacks');
  t.is(loggablePath('/BC/ODataV4/flowWebhook_Invoke'), '/BC/ODataV4/flowWebhook_Invoke');
  t.is(loggablePath('/BC/hooks/Acme/orders'), '/BC/hooks/Acme/orders');
});

const resume = (
  body: string,
  headers: Record<string, string> = { authorization: AUTH, 'content-type': 'application/json' },
  company = 'Acme',
) =>
  fetch(`${base}/BC/ODataV4/flowWebhook_Resume?company=${encodeURIComponent(company)}`, {
    method: 'POST',
    headers,
    body,
  });

test.serial(
  'flowWebhook_Resume: caller, company, activity, secret, key and the exact payload reach the engine; the answer names the execution',
  async (t) => {
    const payload = '{ "carrier" : "DHL", "weight": 1.50 }';
    const response = await resume(
      `{"activity": "orders.ship", "secret": "s3cret", "key": "ORD-1", "payload": ${payload}}`,
    );
    t.is(response.status, 202, 'the step status');
    t.is(response.headers.get('x-flowhook-execution-id'), 'orders.ship:0f8fad5b-d9cb-469f-a165-70867728950e');
    t.is(response.headers.get('odata-version'), '4.0');
    t.is(response.headers.get('content-type'), 'application/json; odata.metadata=minimal');
    t.deepEqual(await response.json(), {
      '@odata.context': `${PUBLIC_URL}/BC/ODataV4/$metadata#Edm.ComplexType`,
      received: true,
      executionId: 'orders.ship:0f8fad5b-d9cb-469f-a165-70867728950e',
    });
    const request = resumes.at(-1)!;
    t.is(request.company, 'Acme');
    t.is(request.activity, 'orders.ship');
    t.is(request.secret, 's3cret');
    t.is(request.key, 'ORD-1');
    t.is(request.payloadJson, payload);
    t.is(request.caller?.identity.case, 'basic');
  },
);

test.serial(
  'a resume without payload sends none (the engine hands over {}); any JSON value is passed as written',
  async (t) => {
    await resume('{"activity": "a", "secret": "s", "key": "k"}');
    t.is(resumes.at(-1)!.payloadJson, '');
    await resume('{"activity": "a", "secret": "s", "key": "k", "payload": [1, 2.0]}');
    t.is(resumes.at(-1)!.payloadJson, '[1, 2.0]');
    const repeated = await resume('{"activity": "a", "secret": "s", "key": "repeated"}');
    t.is(repeated.status, 200);
    t.is(repeated.headers.get('x-flowhook-callback-repeated'), 'true');
  },
);

test.serial(
  'resume refusals: the caller chain of the webhook call before the engine, then the engine decides in the OData shape',
  async (t) => {
    const before = resumes.length;
    const anonymous = await resume('{"activity": "a", "secret": "s", "key": "k"}', {
      'content-type': 'application/json',
    });
    t.is(anonymous.status, 401);
    t.is(anonymous.headers.get('www-authenticate'), 'Basic realm="flowhook"');
    const noCompany = await fetch(`${base}/BC/ODataV4/flowWebhook_Resume`, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: '{}',
    });
    t.is(noCompany.status, 400);
    const notJson = await resume('{"activity": "a"}', { authorization: AUTH, 'content-type': 'text/plain' });
    t.is(notJson.status, 415);
    for (const [body, message] of [
      ['{"activity": "a", "secret": "s"}', 'key is required (a non-empty string)'],
      ['{"activity": "a", "secret": "s", "key": 7}', 'key must be a non-empty string'],
      ['{"activity": "a", "secret": "s", "key": "k", "key": "j"}', 'duplicate member "key" in the request body'],
      ['{"secret": "s", "key": "k"}', 'activity is required (a non-empty string)'],
      ['[1]', 'the request body must be a JSON object'],
    ] as const) {
      const response = await resume(body);
      t.is(response.status, 400, body);
      t.is(((await response.json()) as { error: { message: string } }).error.message, message, body);
    }
    t.is(resumes.length, before, 'none of these reached the engine');

    const used = await resume('{"activity": "a", "secret": "s", "key": "used"}');
    t.is(used.status, 409);
    t.is(used.headers.get('odata-version'), '4.0');
    t.is(((await used.json()) as { error: { code: string } }).error.code, 'Conflict');
    t.is((await resume('{"activity": "a", "secret": "s", "key": "unknown"}')).status, 404);
    const refused = await resume('{"activity": "a", "secret": "wrong", "key": "refused"}');
    t.is(refused.status, 401);
    t.is(await refused.text(), 'Unauthorized');
    t.false(logLines.join('').includes('s3cret'));
  },
);

test('$metadata declares flowWebhook_Resume next to flowWebhook_Invoke', async (t) => {
  const xml = await (await fetch(`${base}/BC/ODataV4/$metadata`)).text();
  t.deepEqual(checkCsdl(xml), []);
  t.deepEqual(actionImportSignature(xml, 'flowWebhook_Resume'), {
    parameters: [
      { name: 'activity', type: 'Edm.String', nullable: false },
      { name: 'secret', type: 'Edm.String', nullable: false },
      { name: 'key', type: 'Edm.String', nullable: false },
      { name: 'payload', type: 'Edm.Untyped', nullable: true },
    ],
    returnType: 'Edm.ComplexType',
  });
  t.is(actionImportSignature(xml, 'flowWebhook_Invoke').returnType, 'Edm.String');
});
