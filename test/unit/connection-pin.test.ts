// Where a connection's credentials may go (flow/connection-pin.ts): scheme and port
// match the pin exactly, and a path stays under the base URL's prefix however the server reads it.
import test from 'ava';
import { checkConnection } from '../../flow/connection-kinds/connection-check.ts';
import { kindSettingsOf } from '../../flow/connection-kinds/connection-settings.ts';
import { connectionAllows, parseAllowedHost, pathWithin } from '../../flow/connection-pin.ts';
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';

const allows = (pin: { baseUrl?: string; allowedHosts?: string[] }, url: string) =>
  connectionAllows({ baseUrl: pin.baseUrl ?? '', allowedHosts: pin.allowedHosts ?? [] }, new URL(url));

test('an allowed host without a scheme is https on its port (443 by default), never plain http or another port', (t) => {
  const pin = { allowedHosts: ['erp.example.com'] };
  t.true(allows(pin, 'https://erp.example.com/orders'));
  t.true(allows(pin, 'https://erp.example.com:443/orders'));
  t.true(allows(pin, 'https://ERP.example.com/orders'));
  t.false(allows(pin, 'http://erp.example.com/orders'));
  t.false(allows(pin, 'http://erp.example.com:8080/orders'));
  t.false(allows(pin, 'https://erp.example.com:8443/orders'));
  t.false(allows(pin, 'http://erp.example.com:443/orders'));
  t.false(allows(pin, 'https://erp.example.com.evil.example/orders'));
  t.false(allows(pin, 'https://x.erp.example.com/orders'));

  const withPort = { allowedHosts: ['erp.example.com:8443'] };
  t.true(allows(withPort, 'https://erp.example.com:8443/x'));
  t.false(allows(withPort, 'http://erp.example.com:8443/x'));
  t.false(allows(withPort, 'https://erp.example.com/x'));
});

test("plain http is allowed only where an entry spells it out, on that entry's port (80 by default)", (t) => {
  t.true(allows({ allowedHosts: ['http://erp.internal:8080'] }, 'http://erp.internal:8080/x'));
  t.false(allows({ allowedHosts: ['http://erp.internal:8080'] }, 'https://erp.internal:8080/x'));
  t.false(allows({ allowedHosts: ['http://erp.internal:8080'] }, 'http://erp.internal/x'));
  t.true(allows({ allowedHosts: ['http://erp.internal'] }, 'http://erp.internal:80/x'));
  t.false(allows({ allowedHosts: ['http://erp.internal'] }, 'http://erp.internal:8080/x'));
  t.true(allows({ allowedHosts: ['https://erp.internal'] }, 'https://erp.internal/x'));
});

test('a base URL pins scheme, host and port, default ports normalised', (t) => {
  const pin = { baseUrl: 'https://erp.example.com/api' };
  t.true(allows(pin, 'https://erp.example.com:443/api/orders'));
  t.true(allows({ baseUrl: 'https://erp.example.com:443/api' }, 'https://erp.example.com/api/orders'));
  t.false(allows(pin, 'http://erp.example.com/api/orders'));
  t.false(allows(pin, 'http://erp.example.com:8080/api/orders'));
  t.false(allows(pin, 'https://erp.example.com:8443/api/orders'));
});

test('the prefix is whole segments: /api never matches /api-admin or /apix', (t) => {
  for (const base of ['/api', '/api/']) {
    t.true(pathWithin('/api', base), base);
    t.true(pathWithin('/api/', base), base);
    t.true(pathWithin('/api/orders', base), base);
    t.true(pathWithin('/api//orders', base), base);
    t.false(pathWithin('/api-admin', base), base);
    t.false(pathWithin('/apix/orders', base), base);
    t.false(pathWithin('/', base), base);
    t.false(pathWithin('/admin', base), base);
  }
  t.true(pathWithin('/anything', '/'), 'a root base URL pins the origin only');
});

// Each of these is a path WHATWG parsing leaves under /api, but that some server reads above it.
const ESCAPES = [
  '/api/..;/admin', // Tomcat, Spring: path parameters on a dot segment
  '/api/..;jsessionid=x/admin',
  '/api/x/..;/..;/admin',
  '/api/..%3b/admin',
  '/api/..%2fadmin', // an encoded slash
  '/api/..%2Fadmin',
  '/api/%2e%2e%2fadmin',
  '/api/..%5cadmin', // an encoded backslash
  '/api/%252e%252e/admin', // double encoding
  '/api/%25252e%25252e/admin', // triple
  '/api/%2525252e%2525252e/admin', // deeper than any server decodes: refused rather than guessed
  '/api/..%00/admin', // what follows a NUL
  '/api/%c0%ae%c0%ae/admin', // overlong UTF-8 for "."
  '/api/x/..%2f..%2f..%2fadmin',
  '/api/v1%2f..%2f..%2fadmin',
] as const;

for (const path of ESCAPES) {
  test(`${path} does not count as under /api`, (t) => {
    const url = new URL(`https://erp.example.com${path}`);
    t.true(url.pathname.startsWith('/api/'), `WHATWG keeps ${url.pathname} under /api`);
    t.false(allows({ baseUrl: 'https://erp.example.com/api' }, url.href));
  });
}

test('what WHATWG parsing resolves is judged as resolved: dot segments, %2e, backslashes', (t) => {
  const pin = { baseUrl: 'https://erp.example.com/api' };
  for (const path of [
    '/api/../admin',
    '/api/%2e%2e/admin',
    '/api/.%2E/admin',
    '/api\\..\\admin',
    '/api/x/../../admin',
  ]) {
    t.false(allows(pin, `https://erp.example.com${path}`), path);
  }
  for (const path of ['/api/x/../orders', '/api/./orders', '/api/%2e/orders'])
    t.true(allows(pin, `https://erp.example.com${path}`), path);
});

test('encoded slashes and path parameters that stay under the prefix are sent as written', (t) => {
  const gitlab = { baseUrl: 'https://gitlab.example.com/api/v4' };
  t.true(allows(gitlab, 'https://gitlab.example.com/api/v4/projects/group%2Fproject/issues'));
  t.true(allows(gitlab, 'https://gitlab.example.com/api/v4/projects/a;b=c/x'));
  t.true(allows(gitlab, 'https://gitlab.example.com/api/v4/files/100%25'));
  t.true(allows(gitlab, 'https://gitlab.example.com/api/v4/caf%C3%A9'));
  t.true(allows(gitlab, 'https://gitlab.example.com/api/v4/a/..%2fb'), '/api/v4/a/../b is still /api/v4/b');
});

test('allowed-host entries: host, host:port, http(s)://host[:port]; anything else is refused at connection set', (t) => {
  t.deepEqual(parseAllowedHost('erp.example.com'), { protocol: 'https:', hostname: 'erp.example.com', port: 443 });
  t.deepEqual(parseAllowedHost('erp.example.com:8443'), {
    protocol: 'https:',
    hostname: 'erp.example.com',
    port: 8443,
  });
  t.deepEqual(parseAllowedHost('http://erp.internal'), { protocol: 'http:', hostname: 'erp.internal', port: 80 });
  t.deepEqual(parseAllowedHost('https://127.0.0.1:9443'), { protocol: 'https:', hostname: '127.0.0.1', port: 9443 });
  for (const bad of [
    'ftp://erp.internal',
    'https://erp.internal/api',
    'erp.internal:0',
    'erp.internal:65536',
    'ERP.internal',
    '*.example.com',
    'http://',
    'user@erp.internal',
  ]) {
    t.is(parseAllowedHost(bad), undefined, bad);
  }
  const settings = { baseUrl: '', ...kindSettingsOf({}) };
  t.deepEqual(
    checkConnection(
      ConnectionType.BEARER,
      { ...settings, allowedHosts: ['http://erp.internal:8080', 'erp.example.com'] },
      'token',
    ),
    [],
  );
  t.deepEqual(
    checkConnection(ConnectionType.BEARER, { ...settings, allowedHosts: ['https://erp.internal/api'] }, 'token'),
    ['allowedHosts: "https://erp.internal/api" is not a lower-case host, host:port (https) or http://host[:port]'],
  );
});
