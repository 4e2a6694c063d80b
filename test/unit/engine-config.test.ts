// The engine's configuration: the bootstrap admin token is optional, the old
// shared service token is refused with a message saying what replaced it.
import test from 'ava';
import { readEngineConfig } from '../../engine/config.ts';

const base = {
  FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  FLOWHOOK_ADMIN_TOKEN: 'an-admin-token-of-at-least-32-characters',
};

test('the shared service token of earlier releases stops the engine with what replaced it', (t) => {
  t.throws(() => readEngineConfig({ ...base, FLOWHOOK_SERVICE_TOKEN: 'a-service-token-of-24-ch' }), {
    message: /FLOWHOOK_SERVICE_TOKEN is no longer read.*service-account create/,
  });
});

test('the bootstrap admin token is optional, but not short: one of the 16 characters earlier releases took stops the engine, saying how to make a new one', (t) => {
  t.is(readEngineConfig({ FLOWHOOK_DATABASE_URL: base.FLOWHOOK_DATABASE_URL }).adminToken, undefined);
  t.throws(() => readEngineConfig({ ...base, FLOWHOOK_ADMIN_TOKEN: 'short' }), {
    message: /FLOWHOOK_ADMIN_TOKEN must have at least 32/,
  });
  const error = t.throws(() => readEngineConfig({ ...base, FLOWHOOK_ADMIN_TOKEN: 'sixteen-chars-ok' }));
  t.regex(error!.message, /at least 32 characters.*make one with `openssl rand -base64 32`/);
  t.false(error!.message.includes('sixteen-chars-ok'), 'the token is not quoted');
  t.is(readEngineConfig({ ...base, FLOWHOOK_ADMIN_TOKEN: 'x'.repeat(32) }).adminToken, 'x'.repeat(32));
});

test('bound to loopback by default; insecure must be said as true or false', (t) => {
  const config = readEngineConfig(base);
  t.is(config.host, '127.0.0.1');
  t.false(config.insecure);
  t.true(readEngineConfig({ ...base, FLOWHOOK_ENGINE_INSECURE: 'true' }).insecure);
  t.throws(() => readEngineConfig({ ...base, FLOWHOOK_ENGINE_INSECURE: 'yes' }), {
    message: /FLOWHOOK_ENGINE_INSECURE must be true or false/,
  });
});

test('the engine reads messages up to the facade body limit plus the envelope', (t) => {
  t.is(readEngineConfig(base).maxMessageBytes, 1024 * 1024 + 64 * 1024);
  t.is(readEngineConfig({ ...base, FLOWHOOK_MAX_BODY_BYTES: '1000' }).maxMessageBytes, 1000 + 64 * 1024);
});

test('rate limits and the sync-call cap have defaults, can be turned off, and reject nonsense', (t) => {
  const secure = base;
  t.deepEqual(readEngineConfig(secure).limits, {
    perCaller: { perSecond: 500, burst: 1000 },
    perActivity: { perSecond: 500, burst: 1000 },
    perCompany: { perSecond: 0, burst: 1 },
    global: { perSecond: 0, burst: 1 },
    perHookRoute: { perSecond: 100, burst: 200 },
    callbacks: { perSecond: 10, burst: 20 },
    maxConcurrentSyncCalls: 1000,
  });
  const off = readEngineConfig({
    ...secure,
    FLOWHOOK_RATE_LIMIT_PER_CALLER: '0',
    FLOWHOOK_RATE_LIMIT_PER_ACTIVITY: '20',
    FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST: '5',
    FLOWHOOK_RATE_LIMIT_PER_COMPANY: '50',
    FLOWHOOK_RATE_LIMIT_GLOBAL: '200',
    FLOWHOOK_RATE_LIMIT_GLOBAL_BURST: '300',
    FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE: '0',
    FLOWHOOK_RATE_LIMIT_CALLBACKS: '0',
    FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS: '0',
  });
  t.deepEqual(off.limits, {
    perCaller: { perSecond: 0, burst: 1 },
    perActivity: { perSecond: 20, burst: 5 },
    perCompany: { perSecond: 50, burst: 100 },
    global: { perSecond: 200, burst: 300 },
    perHookRoute: { perSecond: 0, burst: 1 },
    callbacks: { perSecond: 0, burst: 1 },
    maxConcurrentSyncCalls: 0,
  });
  t.throws(() => readEngineConfig({ ...secure, FLOWHOOK_RATE_LIMIT_PER_COMPANY: '-1' }), {
    message: /FLOWHOOK_RATE_LIMIT_PER_COMPANY must be an integer >= 0/,
  });
  t.throws(() => readEngineConfig({ ...secure, FLOWHOOK_RATE_LIMIT_GLOBAL: '1.5' }), {
    message: /FLOWHOOK_RATE_LIMIT_GLOBAL must be an integer >= 0/,
  });
  t.throws(() => readEngineConfig({ ...secure, FLOWHOOK_RATE_LIMIT_PER_CALLER: 'fast' }), {
    message: /FLOWHOOK_RATE_LIMIT_PER_CALLER must be an integer >= 0/,
  });
  t.throws(() => readEngineConfig({ ...secure, FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST: '0' }), {
    message: /FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST must be an integer >= 1/,
  });
});

test('the change feed heartbeat and the cache age have defaults and refuse nonsense', (t) => {
  t.deepEqual(readEngineConfig(base).changeFeed, { heartbeatIntervalMs: 2000, maxAgeMs: 30_000 });
  t.deepEqual(
    readEngineConfig({ ...base, FLOWHOOK_CHANGE_FEED_HEARTBEAT_MS: '500', FLOWHOOK_CACHE_MAX_AGE_MS: '10000' })
      .changeFeed,
    {
      heartbeatIntervalMs: 500,
      maxAgeMs: 10_000,
    },
  );
  t.throws(() => readEngineConfig({ ...base, FLOWHOOK_CACHE_MAX_AGE_MS: '1.5' }), {
    message: /FLOWHOOK_CACHE_MAX_AGE_MS must be/,
  });
  t.throws(() => readEngineConfig({ ...base, FLOWHOOK_CHANGE_FEED_HEARTBEAT_MS: '0' }), {
    message: /FLOWHOOK_CHANGE_FEED_HEARTBEAT_MS must be/,
  });
});

test('the default public URL (flow cards) is https when the facade has a certificate', (t) => {
  t.is(readEngineConfig(base).publicUrl, 'http://localhost:7048');
  t.is(
    readEngineConfig({ ...base, FLOWHOOK_FACADE_TLS_CERT: '/etc/facade.pem', FLOWHOOK_FACADE_PORT: '8443' }).publicUrl,
    'https://localhost:8443',
  );
});
