// The 401's WWW-Authenticate names exactly the schemes the facade verifies:
// Basic alone by default, Bearer first and Basic when OAuth issuers are set,
// and Bearer alone for a facade that takes only tokens — whether the facade
// refused the credentials itself or the engine refused the call (wrong secret).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import test from 'ava';
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { WebhookService, InvokeOutcome } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { createFacade, type ListeningFacade } from '../../facade/app.ts';
import { authenticationChallenge, basicVerifier, type CallerVerifier } from '../../facade/caller-credentials.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { createFacadeLogger } from '../../facade/logger.ts';
import { bearerVerifier } from '../../facade/oauth/bearer-verifier.ts';

const ISSUER = 'https://idp.example.test/tenant/v2.0';
const AUDIENCE = 'api://flowhook';
const SECRET = 'per-flow-secret-0123456789abcdefgh';
const BASIC = `Basic ${Buffer.from('svc-flows:an-access-key').toString('base64')}`;

let jwksServer: Server;
let signingKey: CryptoKey;
let bearer: CallerVerifier;
const facades: ListeningFacade[] = [];
const sink = new Writable({ write: (_chunk, _encoding, done) => done() });

test.before(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  signingKey = privateKey;
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
  jwksServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/keys`;
  bearer = bearerVerifier(
    {
      issuers: [{ issuer: ISSUER, jwksUri }],
      audiences: [AUDIENCE],
      clockToleranceSeconds: 60,
      maxTokenAgeSeconds: 3600,
    },
    createFacadeLogger('error', sink),
  );
});

test.after.always(async () => {
  for (const facade of facades) await facade.close();
  await new Promise<void>((resolve) => jwksServer.close(() => resolve()));
});

/** A facade in front of an engine that refuses the secret `wrong` (as the real one does: Unauthenticated). */
async function start(verifiers?: readonly CallerVerifier[]): Promise<string> {
  const transport = createRouterTransport(({ service }) => {
    service(WebhookService, {
      invoke(request) {
        if (request.secret === 'wrong') throw new ConnectError('Unauthorized', Code.Unauthenticated);
        return {
          statusCode: 200,
          contentType: 'application/json',
          body: '{}',
          executionId: 'x:1',
          outcome: InvokeOutcome.RESPONDED,
        };
      },
    });
  });
  const config = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_FACADE_PORT: '0',
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
  });
  const facade = await createFacade({
    config,
    webhookClient: createClient(WebhookService, transport),
    logger: createFacadeLogger('error', sink),
    verifiers,
  }).listen();
  facades.push(facade);
  return `http://127.0.0.1:${facade.port}/BC/ODataV4/flowWebhook_Invoke?company=Acme`;
}

async function post(
  url: string,
  authorization: string | undefined,
  secret = SECRET,
): Promise<{ status: number; challenge: string | null }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(authorization ? { authorization } : {}),
  };
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ activity: 'a', secret, payload: {} }),
  });
  await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}

const token = () =>
  new SignJWT({ client_id: 'erp-connector' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(signingKey);

test("the challenge lists the verifiers' schemes, Bearer first", (t) => {
  t.is(authenticationChallenge([basicVerifier]), 'Basic realm="flowhook"');
  t.is(authenticationChallenge([basicVerifier, bearer]), 'Bearer realm="flowhook", Basic realm="flowhook"');
  t.is(authenticationChallenge([bearer]), 'Bearer realm="flowhook"');
});

test('a Basic-only facade challenges Basic', async (t) => {
  const url = await start();
  t.deepEqual(await post(url, undefined), { status: 401, challenge: 'Basic realm="flowhook"' });
  t.deepEqual(await post(url, BASIC, 'wrong'), { status: 401, challenge: 'Basic realm="flowhook"' });
});

test('with OAuth issuers the facade challenges Bearer, then Basic', async (t) => {
  const url = await start([basicVerifier, bearer]);
  t.deepEqual(await post(url, undefined), {
    status: 401,
    challenge: 'Bearer realm="flowhook", Basic realm="flowhook"',
  });
  t.deepEqual(await post(url, `Bearer ${await token()}`, 'wrong'), {
    status: 401,
    challenge: 'Bearer realm="flowhook", Basic realm="flowhook"',
  });
  t.is((await post(url, `Bearer ${await token()}`)).status, 200, 'the token itself is good');
});

test('a Bearer-only facade challenges Bearer, never Basic', async (t) => {
  const url = await start([bearer]);
  t.deepEqual(await post(url, undefined), { status: 401, challenge: 'Bearer realm="flowhook"' });
  t.deepEqual(
    await post(url, BASIC),
    { status: 401, challenge: 'Bearer realm="flowhook"' },
    'Basic is an unsupported scheme here',
  );
  t.deepEqual(
    await post(url, `Bearer ${await token()}`, 'wrong'),
    { status: 401, challenge: 'Bearer realm="flowhook"' },
    'the engine refused the secret',
  );
});
