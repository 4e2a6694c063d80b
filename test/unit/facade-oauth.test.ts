// The OAuth settings (FLOWHOOK_OAUTH_*, FLOWHOOK_FACADE_TLS_*) and how the
// client id and tenant are read from Microsoft Entra ID v1/v2 and RFC 9068
// token shapes.
import test from 'ava';
import { readFacadeConfig } from '../../facade/config.ts';
import { application } from '../../facade/oauth/bearer-verifier.ts';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '8f3c4a2e-5b1d-4c6e-9a7f-0e2d1c3b4a59';

test('issuers as a comma list share the audience, the default clock tolerance and the default maximum token age', (t) => {
  const { oauth } = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_OAUTH_ISSUERS: `https://sts.windows.net/${TENANT}/, https://login.microsoftonline.com/${TENANT}/v2.0`,
    FLOWHOOK_OAUTH_AUDIENCE: 'api://flowhook,11111111-2222-3333-4444-555555555555',
  });
  t.deepEqual(oauth, {
    issuers: [
      { issuer: `https://sts.windows.net/${TENANT}/` },
      { issuer: `https://login.microsoftonline.com/${TENANT}/v2.0` },
    ],
    audiences: ['api://flowhook', '11111111-2222-3333-4444-555555555555'],
    clockToleranceSeconds: 60,
    maxTokenAgeSeconds: 86_400,
  });
});

test('the maximum token age is set in seconds, 0 lifts it, and a value below a minute is refused by name', (t) => {
  const base = {
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_OAUTH_ISSUERS: 'https://idp.example.test',
    FLOWHOOK_OAUTH_AUDIENCE: 'api://x',
  };
  t.is(readFacadeConfig({ ...base, FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS: '5400' }).oauth?.maxTokenAgeSeconds, 5400);
  t.is(readFacadeConfig({ ...base, FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS: '0' }).oauth?.maxTokenAgeSeconds, 0);
  t.throws(() => readFacadeConfig({ ...base, FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS: '30' }), {
    message: /FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS must be 0 \(no limit\) or an integer >= 60/,
  });
  t.throws(() => readFacadeConfig({ ...base, FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS: '1h' }), {
    message: /FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS must be 0 \(no limit\) or an integer/,
  });
});

test('Basic is on by default; FLOWHOOK_BASIC_AUTH=off needs issuers and is refused by name without them', (t) => {
  const base = { FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus' };
  const issuers = { FLOWHOOK_OAUTH_ISSUERS: 'https://idp.example.test', FLOWHOOK_OAUTH_AUDIENCE: 'api://x' };
  t.true(readFacadeConfig(base).basicAuth);
  t.true(readFacadeConfig({ ...base, FLOWHOOK_BASIC_AUTH: 'on' }).basicAuth);
  t.false(readFacadeConfig({ ...base, ...issuers, FLOWHOOK_BASIC_AUTH: 'off' }).basicAuth);
  t.throws(() => readFacadeConfig({ ...base, FLOWHOOK_BASIC_AUTH: 'off' }), {
    message: /FLOWHOOK_BASIC_AUTH=off needs FLOWHOOK_OAUTH_ISSUERS/,
  });
  t.throws(() => readFacadeConfig({ ...base, ...issuers, FLOWHOOK_BASIC_AUTH: 'no' }), {
    message: /FLOWHOOK_BASIC_AUTH must be on or off/,
  });
});

test('issuers as JSON may name their key set and audiences', (t) => {
  const { oauth } = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_OAUTH_ISSUERS: JSON.stringify([
      {
        issuer: `https://sts.windows.net/${TENANT}/`,
        jwksUri: `https://login.microsoftonline.com/${TENANT}/discovery/keys`,
        audiences: ['api://flowhook'],
      },
    ]),
    FLOWHOOK_OAUTH_CLOCK_TOLERANCE_SECONDS: '30',
  });
  t.is(oauth?.issuers[0]?.jwksUri, `https://login.microsoftonline.com/${TENANT}/discovery/keys`);
  t.deepEqual(oauth?.audiences, []);
  t.is(oauth?.clockToleranceSeconds, 30);
});

test('wrong OAuth and TLS settings stop the facade with the variable named', (t) => {
  t.throws(
    () =>
      readFacadeConfig({
        FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
        FLOWHOOK_OAUTH_ISSUERS: 'https://idp.example.test',
      }),
    {
      message: /FLOWHOOK_OAUTH_AUDIENCE is required/,
    },
  );
  t.throws(
    () =>
      readFacadeConfig({
        FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
        FLOWHOOK_OAUTH_ISSUERS: 'http://idp.example.test',
        FLOWHOOK_OAUTH_AUDIENCE: 'api://x',
      }),
    {
      message: /FLOWHOOK_OAUTH_ISSUERS.*must be an https URL/,
    },
  );
  t.throws(
    () =>
      readFacadeConfig({
        FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
        FLOWHOOK_OAUTH_ISSUERS: '[{"jwksUri": 1}]',
        FLOWHOOK_OAUTH_AUDIENCE: 'api://x',
      }),
    {
      message: /FLOWHOOK_OAUTH_ISSUERS must be/,
    },
  );
  t.throws(
    () =>
      readFacadeConfig({ FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus', FLOWHOOK_FACADE_TLS_CERT: '/etc/cert.pem' }),
    { message: /FLOWHOOK_FACADE_TLS_KEY/ },
  );
  t.notThrows(
    () =>
      readFacadeConfig({
        FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
        FLOWHOOK_OAUTH_ISSUERS: 'http://127.0.0.1:9000',
        FLOWHOOK_OAUTH_AUDIENCE: 'api://x',
      }),
    'http on loopback is for local identity providers',
  );
});

test('with TLS files the default public URL is https', (t) => {
  const config = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_FACADE_TLS_CERT: '/etc/cert.pem',
    FLOWHOOK_FACADE_TLS_KEY: '/etc/key.pem',
  });
  t.is(config.publicUrl, 'https://localhost:7048');
});

test('Entra ID v1 app token: client id from appid, tenant from tid', (t) => {
  const issuer = `https://sts.windows.net/${TENANT}/`;
  const caller = application(
    {
      iss: issuer,
      aud: 'api://flowhook',
      appid: CLIENT,
      tid: TENANT,
      idtyp: 'app',
      roles: ['Flows.Invoke'],
      ver: '1.0',
    },
    issuer,
  );
  t.deepEqual(caller, { identity: { case: 'application', value: { clientId: CLIENT, tenantId: TENANT, issuer } } });
});

test('Entra ID v2 app token: client id from azp', (t) => {
  const issuer = `https://login.microsoftonline.com/${TENANT}/v2.0`;
  const caller = application(
    { iss: issuer, aud: '11111111-2222-3333-4444-555555555555', azp: CLIENT, tid: TENANT, ver: '2.0' },
    issuer,
  );
  t.is(caller?.identity?.case === 'application' ? caller.identity.value.clientId : undefined, CLIENT);
});

test('RFC 9068 token: client id from client_id, no tenant', (t) => {
  const caller = application({ client_id: 'erp-connector', sub: 'erp-connector' }, 'https://idp.example.test');
  t.deepEqual(caller, {
    identity: {
      case: 'application',
      value: { clientId: 'erp-connector', tenantId: '', issuer: 'https://idp.example.test' },
    },
  });
});

test('tokens without a client id are not application callers (user tokens are refused before: token-kind.test.ts)', (t) => {
  t.is(application({ sub: 'someone' }, 'https://idp.example.test'), undefined);
});
