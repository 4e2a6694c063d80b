// The facade process as shipped (runFacade + the HTTP/2 engine client) in
// front of a stand-in engine: a real HTTP/2 cleartext Connect server on port 0.
import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { InvokeOutcome, WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { readFacadeConfig } from '../../facade/config.ts';
import { createEngineClient } from '../../facade/engine-client.ts';
import { runFacade } from '../../facade/main.ts';

const SERVICE_TOKEN = 'service-token-0123456789abcdef';
const AUTH = `Basic ${Buffer.from('svc:key').toString('base64')}`;

interface StandIn {
  url: string;
  authorizations: (string | null)[];
  close(): Promise<void>;
}

async function startStandInEngine(): Promise<StandIn> {
  const authorizations: (string | null)[] = [];
  const handler = connectNodeAdapter({
    routes(router) {
      router.service(WebhookService, {
        invoke(request, context) {
          authorizations.push(context.requestHeader.get('authorization'));
          if (request.activity === 'missing') throw new ConnectError('No flow "missing"', Code.NotFound);
          return {
            statusCode: 201,
            contentType: 'text/plain',
            body: `${request.company}|${request.payloadJson}`,
            executionId: 'run-1',
            outcome: InvokeOutcome.SYNC_TIMEOUT,
          };
        },
      });
    },
  });
  const server: Http2Server = createServer(handler);
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.close();
      }),
  };
}

test('the engine client speaks HTTP/2 and sends the service token', async (t) => {
  const engine = await startStandInEngine();
  const client = createEngineClient({ engineUrl: engine.url, engineToken: SERVICE_TOKEN });
  try {
    const response = await client.webhook.invoke({ company: 'Acme', activity: 'a', secret: 's', payloadJson: '{}' });
    t.is(response.statusCode, 201);
    await t.throwsAsync(client.webhook.invoke({ activity: 'missing' }), {
      instanceOf: ConnectError,
      message: '[not_found] No flow "missing"',
    });
    t.deepEqual(engine.authorizations, [`Bearer ${SERVICE_TOKEN}`, `Bearer ${SERVICE_TOKEN}`]);
  } finally {
    client.close();
    await engine.close();
  }
});

test('a facade without its service account token does not start, and the message says how to get one', (t) => {
  const env = { FLOWHOOK_FACADE_PORT: '0', FLOWHOOK_ENGINE_URL: 'http://127.0.0.1:7049' };
  t.throws(() => readFacadeConfig(env), {
    message: /needs its service account token in FLOWHOOK_ENGINE_TOKEN.*service-account create/,
  });
  t.throws(() => readFacadeConfig({ ...env, FLOWHOOK_SERVICE_TOKEN: SERVICE_TOKEN }), {
    message: /FLOWHOOK_SERVICE_TOKEN is no longer read/,
  });
});

test('runFacade serves the endpoint through the engine and stops cleanly', async (t) => {
  const engine = await startStandInEngine();
  const facade = await runFacade(
    readFacadeConfig({
      FLOWHOOK_FACADE_PORT: '0',
      FLOWHOOK_FACADE_METRICS_PORT: '0',
      FLOWHOOK_FACADE_HOST: '127.0.0.1',
      FLOWHOOK_ENGINE_URL: engine.url,
      FLOWHOOK_ENGINE_TOKEN: SERVICE_TOKEN,
      FLOWHOOK_LOG_LEVEL: 'error',
    }),
    { handleSignals: false },
  );
  try {
    const url = `http://127.0.0.1:${facade.port}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent('Acme Ltd.')}`;
    const payload = '{"n": 1.50, "big": 99999999999999999999}';
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: `{"activity":"a","secret":"s","payload":${payload}}`,
    });
    const envelope = JSON.parse(await response.text());
    t.is(response.status, 200);
    t.is(response.headers.get('x-flowhook-outcome'), 'sync-timeout');
    t.is(response.headers.get('x-flowhook-execution-id'), 'run-1');
    // Port 0 and no FLOWHOOK_PUBLIC_URL: the context names the port actually bound.
    t.is(envelope['@odata.context'], `http://localhost:${facade.port}/BC/ODataV4/$metadata#Edm.String`);
    t.deepEqual(JSON.parse(envelope.value), {
      statusCode: 201,
      contentType: 'text/plain',
      body: `Acme Ltd.|${payload}`,
    });
    t.deepEqual(engine.authorizations, [`Bearer ${SERVICE_TOKEN}`]);

    const missing = await fetch(url, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: '{"activity":"missing","secret":"s","payload":{}}',
    });
    t.is(missing.status, 404);
    t.deepEqual(await missing.json(), { error: { code: 'NotFound', message: 'No flow "missing"' } });
  } finally {
    await facade.close();
    await facade.close(); // idempotent: a CLI's own signal handling may call it again
    await engine.close();
  }
});

test('an unreachable engine answers 503 with Retry-After', async (t) => {
  const engine = await startStandInEngine();
  await engine.close(); // its port is now closed
  const facade = await runFacade(
    readFacadeConfig({
      FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
      FLOWHOOK_FACADE_PORT: '0',
      FLOWHOOK_FACADE_METRICS_PORT: '0',
      FLOWHOOK_FACADE_HOST: '127.0.0.1',
      FLOWHOOK_ENGINE_URL: engine.url,
      FLOWHOOK_LOG_LEVEL: 'error',
    }),
    { handleSignals: false },
  );
  try {
    const response = await fetch(`http://127.0.0.1:${facade.port}/BC/ODataV4/flowWebhook_Invoke?company=Acme`, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: '{"activity":"a","secret":"s","payload":{}}',
    });
    t.is(response.status, 503);
    t.is(response.headers.get('retry-after'), '5');
    const body = (await response.json()) as { error: { code: string; message: string } };
    t.is(body.error.code, 'ServiceUnavailable');
    t.false(body.error.message.includes('127.0.0.1'));
  } finally {
    await facade.close();
  }
});
