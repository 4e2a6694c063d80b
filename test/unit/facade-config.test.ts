import test from 'ava';
import { readFacadeConfig } from '../../facade/config.ts';
import { NO_TRUSTED_PROXIES } from '../../facade/sender-address.ts';

// The facade does not start without its service account token; every test gives it one.
const TOKEN = 'a-token-of-sixteen-plus';
const withToken = (env: Record<string, string>) => ({ FLOWHOOK_ENGINE_TOKEN: TOKEN, ...env });

test('defaults', (t) => {
  t.deepEqual(
    { ...readFacadeConfig(withToken({})) },
    {
      port: 7048,
      host: '0.0.0.0',
      instance: 'BC',
      publicUrl: 'http://localhost:7048',
      engineUrl: 'http://127.0.0.1:7049',
      engineToken: TOKEN,
      engineTls: undefined,
      maxBodyBytes: 1048576,
      logLevel: 'info',
      oauth: undefined,
      basicAuth: true,
      tls: undefined,
      metrics: { host: '127.0.0.1', port: 7053 },
      metricsToken: undefined,
      tracing: { enabled: false },
      // No proxy is trusted: X-Forwarded-For is never read.
      trustedProxies: NO_TRUSTED_PROXIES,
      // The delivery log is on: at most FLOWHOOK_DELIVERY_BUFFER reports wait for the engine.
      deliveryLog: { capacity: 10_000 },
    },
  );
  t.deepEqual(readFacadeConfig(withToken({ FLOWHOOK_DELIVERY_LOG: 'off' })).deliveryLog, undefined);
  t.true(Object.isFrozen(readFacadeConfig(withToken({}))));
});

test('values are read from the variables', (t) => {
  const config = readFacadeConfig(
    withToken({
      FLOWHOOK_FACADE_PORT: '8080',
      FLOWHOOK_FACADE_HOST: '127.0.0.1',
      FLOWHOOK_INSTANCE: 'Prod',
      FLOWHOOK_PUBLIC_URL: 'https://hooks.example.com/erp//',
      FLOWHOOK_ENGINE_URL: 'http://engine:7049',
      FLOWHOOK_MAX_BODY_BYTES: '2048',
      FLOWHOOK_LOG_LEVEL: 'WARN',
    }),
  );
  t.like(config, {
    port: 8080,
    host: '127.0.0.1',
    instance: 'Prod',
    publicUrl: 'https://hooks.example.com/erp',
    engineUrl: 'http://engine:7049',
    engineToken: TOKEN,
    maxBodyBytes: 2048,
    logLevel: 'warn',
  });
  t.is(readFacadeConfig(withToken({ FLOWHOOK_FACADE_PORT: '9000' })).publicUrl, 'http://localhost:9000');
});

test('a wrong value names its variable', (t) => {
  const wrong: Record<string, string> = {
    FLOWHOOK_FACADE_PORT: '70000',
    FLOWHOOK_MAX_BODY_BYTES: '1.5',
    FLOWHOOK_PUBLIC_URL: 'ftp://example.com',
    FLOWHOOK_ENGINE_URL: 'not a url',
    FLOWHOOK_ENGINE_TOKEN: 'short',
    FLOWHOOK_LOG_LEVEL: 'verbose',
    FLOWHOOK_INSTANCE: 'a/b',
  };
  for (const [name, value] of Object.entries(wrong)) {
    t.throws(() => readFacadeConfig(withToken({ [name]: value })), { message: new RegExp(name) }, name);
  }
  t.throws(() => readFacadeConfig(withToken({ FLOWHOOK_MAX_BODY_BYTES: '0' })), { message: /FLOWHOOK_MAX_BODY_BYTES/ });
});

test('FLOWHOOK_TRUSTED_PROXIES names the proxies whose X-Forwarded-For is read; a wrong entry stops the facade', (t) => {
  t.deepEqual(
    readFacadeConfig(withToken({ FLOWHOOK_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7' })).trustedProxies.entries,
    ['10.0.0.0/8', '192.0.2.7'],
  );
  t.throws(() => readFacadeConfig(withToken({ FLOWHOOK_TRUSTED_PROXIES: 'lb.internal' })), {
    message: /^FLOWHOOK_TRUSTED_PROXIES: "lb.internal" is not an IP address or CIDR block/,
  });
});
