// Re-reading a console person's roles at the identity provider
// (engine/edges/console/console-oidc.ts `recheck`), against a small provider on a
// loopback port: with a refresh token the provider answers without an ID
// token, the roles come from userinfo with the new access token; a refused
// refresh, userinfo refusing, another subject or no role left end the
// session (confirmed: false); a provider answering 5xx or not at all decides
// nothing (ProviderUnavailableError); a rotated refresh token is handed back.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createOidcClient, type OidcClient } from '../../engine/edges/console/console-oidc.ts';
import { ProviderUnavailableError } from '../../engine/edges/http/oidc-provider.ts';

interface Behaviour {
  token: (form: URLSearchParams) => { status: number; body: object };
  userinfo: (authorization: string | undefined) => { status: number; body: object };
}

let server: Server;
let client: OidcClient;
let behaviour: Behaviour;
const forms: URLSearchParams[] = [];

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

test.before(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const send = (status: number, answer: object) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (req.url === '/.well-known/openid-configuration')
        return send(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          userinfo_endpoint: `${issuer}/userinfo`,
          jwks_uri: `${issuer}/jwks`,
        });
      if (req.url === '/token') {
        const form = new URLSearchParams(await body(req));
        forms.push(form);
        const answer = behaviour.token(form);
        return send(answer.status, answer.body);
      }
      if (req.url === '/userinfo') {
        const answer = behaviour.userinfo(req.headers.authorization);
        return send(answer.status, answer.body);
      }
      send(404, {});
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createOidcClient({ issuer, clientId: 'flowhook-console', rolesClaim: 'flowhook_roles', scopes: ['openid'] });
});
test.after.always(() => new Promise<void>((resolve) => server.close(() => resolve())));

const grant = { refreshToken: 'refresh-1', subject: 'pat' };
const refreshed =
  (extra: object = {}) =>
  () => ({ status: 200, body: { access_token: 'access-2', token_type: 'Bearer', ...extra } });
const userinfo = (claims: object) => (authorization: string | undefined) =>
  authorization === 'Bearer access-2'
    ? { status: 200, body: claims }
    : { status: 401, body: { error: 'invalid_token' } };

test.serial(
  'without an ID token in the refresh answer, the roles come from userinfo; a rotated refresh token is handed back',
  async (t) => {
    behaviour = {
      token: refreshed({ refresh_token: 'refresh-2' }),
      userinfo: userinfo({ sub: 'pat', flowhook_roles: ['viewer:Acme', 'editor'] }),
    };
    const found = await client.recheck(grant);
    t.deepEqual(found, { confirmed: true, grants: { Acme: 'viewer', '': 'editor' }, refreshToken: 'refresh-2' });
    const form = forms.at(-1)!;
    t.like(Object.fromEntries(form), {
      grant_type: 'refresh_token',
      refresh_token: 'refresh-1',
      client_id: 'flowhook-console',
    });
    behaviour = { token: refreshed(), userinfo: userinfo({ sub: 'pat', flowhook_roles: 'admin' }) };
    t.like(
      await client.recheck(grant),
      { confirmed: true, refreshToken: 'refresh-1' },
      'a provider that does not rotate: the same token again',
    );
  },
);

test.serial(
  'a refused refresh, a refused access token, another subject or no role left: the session ends, saying why',
  async (t) => {
    behaviour = { token: () => ({ status: 400, body: { error: 'invalid_grant' } }), userinfo: userinfo({}) };
    t.deepEqual(await client.recheck(grant), {
      confirmed: false,
      reason: 'the identity provider refused the refresh token (invalid_grant)',
    });
    behaviour = { token: refreshed(), userinfo: () => ({ status: 401, body: {} }) };
    t.like(await client.recheck(grant), {
      confirmed: false,
      reason: 'the identity provider refused its own access token at userinfo',
    });
    behaviour = { token: refreshed(), userinfo: userinfo({ sub: 'someone-else', flowhook_roles: ['admin'] }) };
    t.like(await client.recheck(grant), {
      confirmed: false,
      reason: 'the identity provider answered for another subject',
    });
    behaviour = { token: refreshed(), userinfo: userinfo({ sub: 'pat', flowhook_roles: ['owner'] }) };
    t.like(await client.recheck(grant), {
      confirmed: false,
      reason: 'the identity provider gives them no console role any more (claim "flowhook_roles")',
    });
  },
);

test.serial('a provider that fails or cannot be reached decides nothing', async (t) => {
  behaviour = { token: () => ({ status: 503, body: {} }), userinfo: userinfo({}) };
  const error = await t.throwsAsync(client.recheck(grant), { instanceOf: ProviderUnavailableError });
  t.regex(error!.message, /token endpoint answered 503/);
  t.false(error!.message.includes('refresh-1'), 'no token in the message');
  behaviour = { token: refreshed(), userinfo: () => ({ status: 500, body: {} }) };
  await t.throwsAsync(client.recheck(grant), { instanceOf: ProviderUnavailableError });
  const gone = createOidcClient({
    issuer: 'http://127.0.0.1:1',
    clientId: 'c',
    rolesClaim: 'flowhook_roles',
    scopes: ['openid'],
  });
  await t.throwsAsync(gone.recheck(grant), { instanceOf: ProviderUnavailableError, message: /could not be reached/ });
});
