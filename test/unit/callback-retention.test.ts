import test from 'ava';
import { readEngineConfig } from '../../engine/config.ts';

const base = { FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db' };
const readCallbackRetention = (env: Record<string, string>) =>
  readEngineConfig({ ...base, ...env }).callbackRetentionMs;

test('30 days by default; a duration of at least an hour otherwise; wrong values name the variable and the floor', (t) => {
  t.is(readCallbackRetention({}), 30 * 86_400_000);
  t.is(readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '' }), 30 * 86_400_000);
  t.is(readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '1h' }), 3_600_000);
  t.is(readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '7d' }), 7 * 86_400_000);
  t.is(readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '2d' }), 2 * 86_400_000);
  t.throws(() => readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '59m' }), {
    message: /^FLOWHOOK_CALLBACK_RETENTION must be a duration of at least 1h .*retried callback deliveries.*got "59m"$/,
  });
  t.throws(() => readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: 'forever' }), {
    message: /FLOWHOOK_CALLBACK_RETENTION/,
  });
  t.throws(() => readCallbackRetention({ FLOWHOOK_CALLBACK_RETENTION: '1m' }), {
    message: /FLOWHOOK_CALLBACK_RETENTION/,
  });
});
