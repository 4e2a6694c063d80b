import test from 'ava';
import { DEFAULT_CALLBACK_RETENTION_MS, readCallbackRetention } from '../../engine/callbacks/callback-retention.ts';
import { readEngineConfig } from '../../engine/config.ts';

test('30 days by default; a duration of at least an hour otherwise; wrong values name the variable and the floor', (t) => {
  t.is(readCallbackRetention({}), DEFAULT_CALLBACK_RETENTION_MS);
  t.is(DEFAULT_CALLBACK_RETENTION_MS, 30 * 86_400_000);
  t.is(readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '' }), DEFAULT_CALLBACK_RETENTION_MS);
  t.is(readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '1h' }), 3_600_000);
  t.is(readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '7d' }), 7 * 86_400_000);
  t.throws(() => readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '59m' }), { message: /^FLOWHOOK_CALLBACK_RETENTION must be a duration of at least 1h .*retried callback deliveries.*got "59m"$/ });
  t.throws(() => readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: 'forever' }), { message: /FLOWHOOK_CALLBACK_RETENTION/ });
});

test('the engine reads it once into its configuration, and refuses to start on a wrong value', (t) => {
  const base = { FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db' };
  t.is(readEngineConfig(base).callbackRetentionMs, DEFAULT_CALLBACK_RETENTION_MS);
  t.is(readEngineConfig({ ...base, FLOWHOOK_CALLBACK_RETENTION: '2d' }).callbackRetentionMs, 2 * 86_400_000);
  t.throws(() => readEngineConfig({ ...base, FLOWHOOK_CALLBACK_RETENTION: '1m' }), { message: /FLOWHOOK_CALLBACK_RETENTION/ });
});
