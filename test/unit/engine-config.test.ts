// The engine refuses to start as an open door: WebhookService needs a service
// token unless FLOWHOOK_ENGINE_INSECURE=true says otherwise.
import test from 'ava';
import { readEngineConfig } from '../../engine/config.ts';

const base = { FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', FLOWHOOK_ADMIN_TOKEN: 'an-admin-token-of-24-chars' };

test('without a service token the engine does not start', (t) => {
  t.throws(() => readEngineConfig(base), { message: /FLOWHOOK_SERVICE_TOKEN is required.*FLOWHOOK_ENGINE_INSECURE=true/ });
  t.throws(() => readEngineConfig({ ...base, FLOWHOOK_SERVICE_TOKEN: 'short' }), { message: /FLOWHOOK_SERVICE_TOKEN must have at least 16/ });
});

test('explicitly insecure, it starts without one', (t) => {
  t.is(readEngineConfig({ ...base, FLOWHOOK_ENGINE_INSECURE: 'true' }).serviceToken, undefined);
  t.throws(() => readEngineConfig({ ...base, FLOWHOOK_ENGINE_INSECURE: 'yes' }), { message: /FLOWHOOK_ENGINE_INSECURE must be true or false/ });
});

test('with a service token it starts, bound to loopback by default', (t) => {
  const config = readEngineConfig({ ...base, FLOWHOOK_SERVICE_TOKEN: 'a-service-token-of-24-ch' });
  t.is(config.serviceToken, 'a-service-token-of-24-ch');
  t.is(config.host, '127.0.0.1');
});

test('rate limits and the sync-call cap have defaults, can be turned off, and reject nonsense', (t) => {
  const secure = { ...base, FLOWHOOK_SERVICE_TOKEN: 'a-service-token-of-24-ch' };
  t.deepEqual(readEngineConfig(secure).limits, { perCaller: { perSecond: 500, burst: 1000 }, perActivity: { perSecond: 500, burst: 1000 }, maxConcurrentSyncCalls: 1000 });
  const off = readEngineConfig({ ...secure, FLOWHOOK_RATE_LIMIT_PER_CALLER: '0', FLOWHOOK_RATE_LIMIT_PER_ACTIVITY: '20', FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST: '5', FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS: '0' });
  t.deepEqual(off.limits, { perCaller: { perSecond: 0, burst: 1 }, perActivity: { perSecond: 20, burst: 5 }, maxConcurrentSyncCalls: 0 });
  t.throws(() => readEngineConfig({ ...secure, FLOWHOOK_RATE_LIMIT_PER_CALLER: 'fast' }), { message: /FLOWHOOK_RATE_LIMIT_PER_CALLER must be an integer >= 0/ });
  t.throws(() => readEngineConfig({ ...secure, FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST: '0' }), { message: /FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST must be an integer >= 1/ });
});
