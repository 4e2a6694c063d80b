// Which key set a discovery document may send the verifier to: https, or http
// only for a local identity provider that is itself http on loopback. And,
// against a real loopback discovery document, that such a provider still works
// while a document naming no usable key set is refused as unreachable.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { acceptableJwksUri, issuerKeys, isKeySetUnreachable } from '../../common/issuer-keys.ts';

test('a key set over https is accepted from any issuer', (t) => {
  t.true(acceptableJwksUri('https://login.example.test/keys', 'https://login.example.test/tenant/v2.0'));
  t.true(acceptableJwksUri('https://keys.example.test/jwks', 'http://127.0.0.1:9000'));
});

test('an http key set is refused unless the issuer itself is http on loopback', (t) => {
  t.false(
    acceptableJwksUri('http://login.example.test/keys', 'https://login.example.test/tenant/v2.0'),
    'an https issuer downgraded to cleartext',
  );
  t.false(
    acceptableJwksUri('http://127.0.0.1:9000/keys', 'https://login.example.test/'),
    'an https issuer pointing at a local port',
  );
  t.false(
    acceptableJwksUri('http://idp.internal/keys', 'http://idp.internal'),
    'http issuer off loopback (refused at configuration anyway)',
  );
  t.true(acceptableJwksUri('http://127.0.0.1:9000/keys', 'http://127.0.0.1:9000'));
  t.true(acceptableJwksUri('http://localhost:9000/keys', 'http://localhost:9000/realms/dev'));
  t.true(acceptableJwksUri('http://[::1]:9000/keys', 'http://[::1]:9000'));
});

test('schemes other than http(s) and unreadable URLs are refused', (t) => {
  t.false(acceptableJwksUri('file:///etc/keys.json', 'http://127.0.0.1:9000'));
  t.false(acceptableJwksUri('not a url', 'http://127.0.0.1:9000'));
});

/** A loopback identity provider whose discovery document names the given jwks_uri. */
async function discoveryServer(jwksUri: (origin: string) => string): Promise<{ issuer: string; server: Server }> {
  let origin = '';
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ issuer: origin, jwks_uri: jwksUri(origin) }));
    } else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer: origin, server };
}

const header = { alg: 'RS256', kid: 'k1' };
const token = { payload: new Uint8Array(), signature: new Uint8Array() } as never;

test('a loopback issuer may name its http key set; a file: key set is refused as unreachable', async (t) => {
  const local = await discoveryServer((origin) => `${origin}/keys`);
  const strange = await discoveryServer(() => 'file:///etc/keys.json');
  t.teardown(() => {
    local.server.close();
    strange.server.close();
  });
  // The key set was fetched (it is empty), so the failure is "no matching key", not discovery.
  const fromLocal = await Promise.resolve(issuerKeys({ issuer: local.issuer })(header, token)).catch(
    (error: unknown) => error,
  );
  t.false(isKeySetUnreachable(fromLocal));
  t.is((fromLocal as Error).name, 'JWKSNoMatchingKey');
  const fromStrange = await Promise.resolve(issuerKeys({ issuer: strange.issuer })(header, token)).catch(
    (error: unknown) => error,
  );
  t.true(isKeySetUnreachable(fromStrange));
  t.regex(
    (fromStrange as Error).message,
    /must be https \(http only when the issuer itself is http on a loopback host\)/,
  );
});
