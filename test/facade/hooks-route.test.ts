// The provider route's facade half over real HTTP, in front of an in-memory
// WebhookService: what reaches the engine (exact bytes, every header
// lower-cased, the query, the decoded company), how the answer leaves (plain
// HTTP, the flow's own status and type) and the route's plain JSON errors.
import { Writable } from 'node:stream';
import test from 'ava';
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import {
  InvokeOutcome,
  WebhookService,
  type InvokeDirectRequest,
} from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { createFacade, type ListeningFacade } from '../../facade/app.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { createFacadeLogger } from '../../facade/logger.ts';
import { createFacadeMetrics } from '../../facade/metrics/facade-metrics.ts';

const MAX_BODY_BYTES = 4096;
const calls: InvokeDirectRequest[] = [];
const logLines: string[] = [];
let facade: ListeningFacade;
let base: string;

const metrics = createFacadeMetrics(undefined);

test.before(async () => {
  const transport = createRouterTransport(({ service }) => {
    service(WebhookService, {
      invoke() {
        throw new ConnectError('not this route', Code.Unimplemented);
      },
      invokeDirect(request) {
        calls.push(request);
        switch (request.activity) {
          case 'refused':
            throw new ConnectError('Unauthorized', Code.Unauthenticated);
          case 'unknown':
            throw new ConnectError('No provider route at this address', Code.NotFound);
          case 'limited':
            throw new ConnectError('Too many requests to the provider route', Code.ResourceExhausted);
          case 'down':
            throw new ConnectError('Temporal is unavailable: connect ECONNREFUSED 10.1.2.3:7233', Code.Unavailable);
          default:
            return {
              statusCode: 201,
              contentType: 'application/xml',
              body: '<ok/>',
              executionId: 'hooks.test:key-1',
              outcome: InvokeOutcome.RESPONDED,
            };
        }
      },
    });
  });
  const config = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_FACADE_PORT: '0',
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
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
    metrics,
  }).listen();
  base = `http://127.0.0.1:${facade.port}`;
});
test.after.always(async () => {
  await facade?.close();
});

const post = (path: string, body: string | Buffer | undefined, headers: Record<string, string> = {}, method = 'POST') =>
  fetch(`${base}${path}`, { method, headers, body });

test.serial(
  'the exact bytes, every header lower-cased, the query and the decoded company reach the engine; the answer is plain HTTP',
  async (t) => {
    const body = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0xff, 0x00, 0x0d, 0x0a]);
    const response = await post('/bc/HOOKS/Contoso%20%26%20Co%2FEU/Payments.Stripe?x=1&x=2&q=a%20b', body, {
      'Content-Type': 'application/weird',
      'X-Custom': 'A',
      'x-request-id': 'req-hooks-1',
    });
    t.is(response.status, 201);
    t.is(response.headers.get('content-type'), 'application/xml');
    t.is(await response.text(), '<ok/>');
    t.is(response.headers.get('x-flowhook-execution-id'), 'hooks.test:key-1');
    t.is(response.headers.get('x-flowhook-outcome'), 'responded');
    t.is(response.headers.get('odata-version'), null);
    const request = calls.at(-1)!;
    t.is(request.company, 'Contoso & Co/EU');
    t.is(request.activity, 'Payments.Stripe');
    t.is(request.method, 'POST');
    t.is(request.query, 'x=1&x=2&q=a%20b');
    t.is(request.requestId, 'req-hooks-1');
    t.true(Buffer.from(request.body).equals(body));
    t.true(request.headers.some((header) => header.name === 'content-type' && header.value === 'application/weird'));
    t.true(request.headers.some((header) => header.name === 'x-custom' && header.value === 'A'));
    t.true(request.headers.every((header) => header.name === header.name.toLowerCase()));
  },
);

test.serial(
  'refusals leave in the route plain JSON shape: 401 without a Basic challenge, 404, 429 with Retry-After, 503 without transport details',
  async (t) => {
    const cases: [string, number, string, string][] = [
      ['refused', 401, 'Unauthorized', 'Unauthorized'],
      ['unknown', 404, 'NotFound', 'No provider route at this address'],
      ['limited', 429, 'TooManyRequests', 'Too many requests to the provider route'],
      ['down', 503, 'ServiceUnavailable', 'The service is temporarily unavailable; retry later'],
    ];
    for (const [activity, status, code, message] of cases) {
      const response = await post(`/BC/hooks/Acme/${activity}`, '{}', { 'content-type': 'application/json' });
      t.is(response.status, status, activity);
      t.is(response.headers.get('content-type'), 'application/json; charset=utf-8', activity);
      t.deepEqual(await response.json(), { error: { code, message } }, activity);
      t.is(response.headers.get('www-authenticate'), null, activity);
      t.is(response.headers.get('odata-version'), null, activity);
      if (status === 429 || status === 503)
        t.regex(response.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/, activity);
    }
  },
);

test.serial(
  '405 with Allow: POST for every other method; 413 past the body limit and 415 for a compressed body, before the engine is asked',
  async (t) => {
    const before = calls.length;
    for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
      const response = await post(
        '/BC/hooks/Acme/orders',
        method === 'GET' || method === 'OPTIONS' ? undefined : 'x',
        {},
        method,
      );
      t.is(response.status, 405, method);
      t.is(response.headers.get('allow'), 'POST', method);
      t.is(((await response.json()) as { error: { code: string } }).error.code, 'MethodNotAllowed', method);
    }
    const declared = await post('/BC/hooks/Acme/orders', Buffer.alloc(MAX_BODY_BYTES + 1, 0x61));
    t.is(declared.status, 413);
    t.is(((await declared.json()) as { error: { code: string } }).error.code, 'PayloadTooLarge');
    // Without a Content-Length (chunked), the limit is found while reading.
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 3; i++) controller.enqueue(new Uint8Array(2048).fill(0x62));
        controller.close();
      },
    });
    const streamed = await fetch(`${base}/BC/hooks/Acme/orders`, {
      method: 'POST',
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    t.is(streamed.status, 413);
    const compressed = await post('/BC/hooks/Acme/orders', 'x', { 'content-encoding': 'gzip' });
    t.is(compressed.status, 415);
    const wrongInstance = await post('/XX/hooks/Acme/orders', '{}');
    t.is(wrongInstance.status, 404);
    t.is(wrongInstance.headers.get('content-type'), 'application/json; charset=utf-8');
    t.is(calls.length, before, 'none of these reached the engine');
    t.false(logLines.join('').includes('bbbbbbbb'), 'no body in the logs');
  },
);

test.serial('metrics count the route under one label, whatever company or activity the path names', async (t) => {
  await post('/BC/hooks/Some%20Company/any.activity', '{}');
  // What the facade's metrics port serves (the public port answers /metrics only with the token).
  const text = await metrics.registry.text();
  t.regex(text, /flowhook_facade_http_requests_total\{route="hooks",status="201"\} [1-9]/);
  t.regex(text, /flowhook_facade_http_requests_total\{route="hooks",status="405"\} [1-9]/);
  t.notRegex(text, /Some Company|any\.activity/);
});
