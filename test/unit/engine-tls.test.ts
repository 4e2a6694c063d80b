// TLS on the engine's RPC port: the engine refuses to serve in clear text
// beyond loopback, TLS settings from the environment fail early with the
// variable named, and over a real loopback connection the clients' settings
// get through exactly when they should — CA trusted, client certificate from
// the client CA — with the caller's certificate name visible to handlers.
import { readFileSync } from 'node:fs';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Http2SecureServer, Http2Server, ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { create } from '@bufbuild/protobuf';
import { ConnectError, createClient, createContextKey, createContextValues } from '@connectrpc/connect';
import { connectNodeAdapter, createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import test from 'ava';
import { engineSessionOptions, engineTransportOptions, readEngineClientTls } from '../../common/engine-client-tls.ts';
import type { Env } from '../../common/configuration/read-settings.ts';
import {
  checkEngineExposure,
  clientIdentityOf,
  createEngineHttp2Server,
  readEngineServerTls,
  tlsRefusalReason,
  type ClientIdentity,
  type EngineServerTls,
} from '../../engine/edges/rpc/engine-tls.ts';
import { InvokeResponseSchema, WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { equalTo, eventually } from '../support/eventually.ts';
import { createTestCertificates, type TestCertificates } from '../support/test-certificates.ts';

let certs: TestCertificates;

test.before(async () => {
  certs = await createTestCertificates();
});
test.after.always(() => certs?.remove());

// ---- exposure ----

const SOME_TLS: EngineServerTls = { cert: Buffer.from(''), key: Buffer.from('') };

for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1']) {
  test(`clear text on loopback ${host} is allowed`, (t) => {
    t.notThrows(() => checkEngineExposure({ host, tls: undefined, insecure: false }));
  });
}

for (const host of [
  '0.0.0.0',
  '::',
  '',
  '10.0.0.5',
  'fd00::1',
  'engine.internal',
  '128.0.0.1',
  'localhost.example.com',
]) {
  test(`clear text on ${host || '(every interface)'} is refused, saying why and what to set`, (t) => {
    const error = t.throws(() => checkEngineExposure({ host, tls: undefined, insecure: false }));
    t.regex(error.message, /in clear text/);
    t.regex(error.message, /access keys, flow secrets/);
    t.regex(error.message, /FLOWHOOK_ENGINE_TLS_CERT and FLOWHOOK_ENGINE_TLS_KEY/);
    t.regex(error.message, /FLOWHOOK_ENGINE_INSECURE=true/);
  });
  test(`TLS on ${host || '(every interface)'} is allowed`, (t) => {
    t.notThrows(() => checkEngineExposure({ host, tls: SOME_TLS, insecure: false }));
  });
  test(`clear text on ${host || '(every interface)'} is allowed when insecure was chosen`, (t) => {
    t.notThrows(() => checkEngineExposure({ host, tls: undefined, insecure: true }));
  });
}

// ---- server settings ----

/** File contents must never reach an error message: no line of the file's base64 body appears in it. */
function assertNoContents(t: { false(actual: boolean, message?: string): void }, message: string, path: string): void {
  const body = readFileSync(path, 'latin1')
    .split('\n')
    .filter((line) => line.length > 16 && !line.startsWith('-----'));
  t.false(
    message.includes('PRIVATE KEY') || body.some((line) => message.includes(line)),
    `message leaks file contents: ${message}`,
  );
}

test('the server has no TLS when neither certificate nor key is set', (t) => {
  t.is(readEngineServerTls({}), undefined);
  t.is(readEngineServerTls({ FLOWHOOK_ENGINE_TLS_CERT: '', FLOWHOOK_ENGINE_TLS_KEY: '' }), undefined);
});

test('a server certificate without its key (or the other way round) names the missing variable', (t) => {
  t.throws(() => readEngineServerTls({ FLOWHOOK_ENGINE_TLS_CERT: certs.server.cert }), {
    message: /FLOWHOOK_ENGINE_TLS_KEY is not/,
  });
  t.throws(() => readEngineServerTls({ FLOWHOOK_ENGINE_TLS_KEY: certs.server.key }), {
    message: /FLOWHOOK_ENGINE_TLS_CERT is not/,
  });
});

test('a client CA without server TLS is refused', (t) => {
  t.throws(() => readEngineServerTls({ FLOWHOOK_ENGINE_TLS_CLIENT_CA: certs.clientCa }), {
    message: /FLOWHOOK_ENGINE_TLS_CLIENT_CA requires TLS/,
  });
});

test('unreadable or wrong files name the variable and the path, never the contents', (t) => {
  const missing = `${certs.dir}/nope.crt`;
  const cases: Array<[Env, RegExp, string]> = [
    [
      { FLOWHOOK_ENGINE_TLS_CERT: missing, FLOWHOOK_ENGINE_TLS_KEY: certs.server.key },
      /FLOWHOOK_ENGINE_TLS_CERT points at .*nope\.crt, which does not exist/,
      certs.server.key,
    ],
    [
      { FLOWHOOK_ENGINE_TLS_CERT: certs.dir, FLOWHOOK_ENGINE_TLS_KEY: certs.server.key },
      /FLOWHOOK_ENGINE_TLS_CERT points at .* which is a directory/,
      certs.server.key,
    ],
    [
      { FLOWHOOK_ENGINE_TLS_CERT: certs.server.key, FLOWHOOK_ENGINE_TLS_KEY: certs.server.key },
      /FLOWHOOK_ENGINE_TLS_CERT \(.*server\.key\) holds no PEM certificate/,
      certs.server.key,
    ],
    [
      { FLOWHOOK_ENGINE_TLS_CERT: certs.server.cert, FLOWHOOK_ENGINE_TLS_KEY: certs.server.cert },
      /FLOWHOOK_ENGINE_TLS_KEY \(.*server\.crt\) is not an unencrypted PEM private key/,
      certs.server.cert,
    ],
    [
      { FLOWHOOK_ENGINE_TLS_CERT: certs.server.cert, FLOWHOOK_ENGINE_TLS_KEY: certs.facadeClient.key },
      /FLOWHOOK_ENGINE_TLS_KEY \(.*facade\.key\) is not the private key of the certificate in FLOWHOOK_ENGINE_TLS_CERT/,
      certs.facadeClient.key,
    ],
    [
      {
        FLOWHOOK_ENGINE_TLS_CERT: certs.server.cert,
        FLOWHOOK_ENGINE_TLS_KEY: certs.server.key,
        FLOWHOOK_ENGINE_TLS_CLIENT_CA: certs.server.key,
      },
      /FLOWHOOK_ENGINE_TLS_CLIENT_CA \(.*server\.key\) holds no PEM certificate/,
      certs.server.key,
    ],
  ];
  for (const [env, expected, wrongFile] of cases) {
    const error = t.throws(() => readEngineServerTls(env));
    t.regex(error.message, expected);
    assertNoContents(t, error.message, wrongFile);
  }
});

test('a complete server setting reads certificate, key and client CA', (t) => {
  const tls = readEngineServerTls({
    FLOWHOOK_ENGINE_TLS_CERT: certs.server.cert,
    FLOWHOOK_ENGINE_TLS_KEY: certs.server.key,
    FLOWHOOK_ENGINE_TLS_CLIENT_CA: certs.clientCa,
  });
  t.truthy(tls?.cert.length);
  t.truthy(tls?.key.length);
  t.truthy(tls?.clientCa?.length);
});

// ---- client settings ----

const HTTPS_URL = 'https://localhost:7049';

test('the client has no TLS settings when none is set, whatever the URL', (t) => {
  t.is(readEngineClientTls({}, 'http://127.0.0.1:7049'), undefined);
  t.is(readEngineClientTls({}, HTTPS_URL), undefined);
  t.deepEqual(engineTransportOptions(undefined), {});
  t.is(engineSessionOptions(undefined), undefined);
});

test('client TLS settings on an http:// engine URL say to use https://', (t) => {
  const error = t.throws(() => readEngineClientTls({ FLOWHOOK_ENGINE_CA: certs.serverCa }, 'http://127.0.0.1:7049'));
  t.regex(
    error.message,
    /FLOWHOOK_ENGINE_CA is set but the engine URL http:\/\/127\.0\.0\.1:7049 is not TLS: use https:\/\//,
  );
  t.throws(
    () =>
      readEngineClientTls(
        { FLOWHOOK_ENGINE_CLIENT_CERT: certs.facadeClient.cert, FLOWHOOK_ENGINE_CLIENT_KEY: certs.facadeClient.key },
        'http://127.0.0.1:7049',
      ),
    {
      message: /FLOWHOOK_ENGINE_CLIENT_CERT, FLOWHOOK_ENGINE_CLIENT_KEY are set .* use https:\/\//,
    },
  );
});

test('a client certificate without its key (or the other way round) names the missing variable', (t) => {
  t.throws(() => readEngineClientTls({ FLOWHOOK_ENGINE_CLIENT_CERT: certs.facadeClient.cert }, HTTPS_URL), {
    message: /FLOWHOOK_ENGINE_CLIENT_KEY is not/,
  });
  t.throws(() => readEngineClientTls({ FLOWHOOK_ENGINE_CLIENT_KEY: certs.facadeClient.key }, HTTPS_URL), {
    message: /FLOWHOOK_ENGINE_CLIENT_CERT is not/,
  });
});

test('a wrong client CA file names the variable and path, never the contents', (t) => {
  const error = t.throws(() => readEngineClientTls({ FLOWHOOK_ENGINE_CA: certs.facadeClient.key }, HTTPS_URL));
  t.regex(error.message, /FLOWHOOK_ENGINE_CA \(.*facade\.key\) holds no PEM certificate/);
  assertNoContents(t, error.message, certs.facadeClient.key);
});

test('client settings become node:http2 options: only the given CA, the client certificate, TLS 1.2 at least', (t) => {
  const tls = readEngineClientTls(
    {
      FLOWHOOK_ENGINE_CA: certs.serverCa,
      FLOWHOOK_ENGINE_CLIENT_CERT: certs.facadeClient.cert,
      FLOWHOOK_ENGINE_CLIENT_KEY: certs.facadeClient.key,
    },
    HTTPS_URL,
  );
  const { nodeOptions } = engineTransportOptions(tls);
  t.truthy(nodeOptions?.ca);
  t.truthy(nodeOptions?.cert);
  t.truthy(nodeOptions?.key);
  t.is(nodeOptions?.minVersion, 'TLSv1.2');
  t.deepEqual(engineSessionOptions(tls), nodeOptions);
});

// ---- round trips over loopback ----

const CALLER = createContextKey<ClientIdentity | undefined>(undefined, { description: 'verified client certificate' });

interface RunningEngine {
  url: string;
  /** Calls that reached the handler. */
  calls: number;
  /** Refused handshakes, by reason. */
  refusals: string[];
  close(): Promise<void>;
}

/** A one-method WebhookService that answers with the caller's certificate name. */
async function startEngine(tls: EngineServerTls, host = '127.0.0.1'): Promise<RunningEngine> {
  const engine: RunningEngine = { url: '', calls: 0, refusals: [], close: async () => {} };
  const handler = connectNodeAdapter({
    contextValues: (request) => createContextValues().set(CALLER, clientIdentityOf(request)),
    routes(router) {
      router.service(WebhookService, {
        invoke(_request, context) {
          engine.calls += 1;
          const caller = context.values.get(CALLER);
          return create(InvokeResponseSchema, {
            statusCode: 200,
            contentType: 'text/plain',
            body: caller ? `${caller.commonName}|${caller.subject}` : 'anonymous',
          });
        },
      });
    },
  });
  const server: Http2Server | Http2SecureServer = createEngineHttp2Server(handler, tls);
  server.on('tlsClientError', (error: Error, socket: TLSSocket) =>
    engine.refusals.push(tlsRefusalReason(error, socket)),
  );
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  engine.url = `https://${host === '127.0.0.1' ? 'localhost' : host}:${(server.address() as AddressInfo).port}`;
  engine.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const session of sessions) session.destroy();
    });
  return engine;
}

function serverTls(options: { mutual: boolean }): EngineServerTls {
  const env: Env = { FLOWHOOK_ENGINE_TLS_CERT: certs.server.cert, FLOWHOOK_ENGINE_TLS_KEY: certs.server.key };
  if (options.mutual) env.FLOWHOOK_ENGINE_TLS_CLIENT_CA = certs.clientCa;
  return readEngineServerTls(env)!;
}

/** One call the way the CLI makes it: a transport with nodeOptions. */
async function invokeWith(url: string, env: Env) {
  const transport = createConnectTransport({
    baseUrl: url,
    httpVersion: '2',
    defaultTimeoutMs: 5000,
    ...engineTransportOptions(readEngineClientTls(env, url)),
  });
  return createClient(WebhookService, transport).invoke({});
}

const withCa = (): Env => ({ FLOWHOOK_ENGINE_CA: certs.serverCa });
const withClient = (files: { cert: string; key: string }): Env => ({
  ...withCa(),
  FLOWHOOK_ENGINE_CLIENT_CERT: files.cert,
  FLOWHOOK_ENGINE_CLIENT_KEY: files.key,
});

test('TLS: a client trusting the engine CA gets through, over HTTP/2', async (t) => {
  const engine = await startEngine(serverTls({ mutual: false }));
  t.teardown(engine.close);
  const response = await invokeWith(engine.url, withCa());
  t.is(response.statusCode, 200);
  t.is(response.body, 'anonymous');
});

test('TLS: the IP address in the certificate is verified as well as the name', async (t) => {
  const engine = await startEngine(serverTls({ mutual: false }));
  t.teardown(engine.close);
  const response = await invokeWith(engine.url.replace('localhost', '127.0.0.1'), withCa());
  t.is(response.statusCode, 200);
});

test('TLS: without the engine CA the system roots do not know the certificate, and the call fails', async (t) => {
  const engine = await startEngine(serverTls({ mutual: false }));
  t.teardown(engine.close);
  const error = await t.throwsAsync(invokeWith(engine.url, {}), { instanceOf: ConnectError });
  t.regex(String((error as ConnectError).cause ?? error.message), /certificate|issuer|verify/i);
  t.is(engine.calls, 0);
});

// 127.0.0.2 is loopback too on Linux, but not in the certificate.
test('TLS: a certificate for a different name is refused by the client', async (t) => {
  const engine = await startEngine(serverTls({ mutual: false }), '127.0.0.2');
  t.teardown(engine.close);
  const error = await t.throwsAsync(invokeWith(engine.url, withCa()), { instanceOf: ConnectError });
  t.regex(
    String((error as ConnectError).cause ?? error.message),
    /altnames|does not match|ERR_TLS_CERT_ALTNAME_INVALID/i,
  );
  t.is(engine.calls, 0);
});

test('TLS: there is no HTTP/1.1 fallback: ALPN offers h2 only', async (t) => {
  const engine = await startEngine(serverTls({ mutual: false }));
  t.teardown(engine.close);
  const outcome = await new Promise<string>((resolve) => {
    const agent = new HttpsAgent({ ca: readFileSync(certs.serverCa), ALPNProtocols: ['http/1.1'] });
    const request = httpsRequest(
      `${engine.url}/flowhook.engine.v1.WebhookService/Invoke`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (response) => resolve(`answered ${response.statusCode}`),
    );
    request.on('error', (error) => resolve(`failed: ${error.message}`));
    request.end('{}');
  });
  t.regex(outcome, /^failed: .*no application protocol/);
  t.is(engine.calls, 0);
});

test('mTLS: a client without a certificate is turned away', async (t) => {
  const engine = await startEngine(serverTls({ mutual: true }));
  t.teardown(engine.close);
  await t.throwsAsync(invokeWith(engine.url, withCa()), { instanceOf: ConnectError });
  t.is(engine.calls, 0);
  t.is(await eventually(async () => engine.refusals.length, { until: equalTo(1) }), 1);
  t.deepEqual(engine.refusals, ['ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE']);
});

test('mTLS: a client certificate from an unrelated CA is turned away, even with the right name', async (t) => {
  const engine = await startEngine(serverTls({ mutual: true }));
  t.teardown(engine.close);
  await t.throwsAsync(invokeWith(engine.url, withClient(certs.strangerClient)), { instanceOf: ConnectError });
  t.is(engine.calls, 0);
  t.is(await eventually(async () => engine.refusals.length, { until: equalTo(1) }), 1);
  t.deepEqual(engine.refusals, ['UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
});

test('mTLS: the facade certificate gets through and the handler sees CN=flowhook-facade', async (t) => {
  const engine = await startEngine(serverTls({ mutual: true }));
  t.teardown(engine.close);
  const response = await invokeWith(engine.url, withClient(certs.facadeClient));
  t.is(response.body, 'flowhook-facade|O=flowhook tests, CN=flowhook-facade');
});

test('mTLS: through a shared Http2SessionManager (facade, worker), every call on the session carries the identity', async (t) => {
  const engine = await startEngine(serverTls({ mutual: true }));
  t.teardown(engine.close);
  const tls = readEngineClientTls(withClient(certs.workerClient), engine.url);
  const sessionManager = new Http2SessionManager(engine.url, { pingIntervalMs: 30_000 }, engineSessionOptions(tls));
  t.teardown(() => sessionManager.abort());
  const client = createClient(
    WebhookService,
    createConnectTransport({ baseUrl: engine.url, httpVersion: '2', defaultTimeoutMs: 5000, sessionManager }),
  );
  const [first, second] = await Promise.all([client.invoke({}), client.invoke({})]);
  t.is(first.body, 'flowhook-worker|O=flowhook tests, CN=flowhook-worker');
  t.is(second.body, first.body);
  t.is(engine.calls, 2);
});
