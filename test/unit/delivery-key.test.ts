// How the engine turns a verified provider delivery into its idempotency key
// (engine/domain/flow-control/idempotency.ts), and how long it remembers deliveries of
// routes without a signed timestamp (FLOWHOOK_HOOK_REPLAY_WINDOW).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { deliveryIdempotencyKey } from '../../engine/domain/flow-control/idempotency.ts';
import { readEngineConfig } from '../../engine/config.ts';

const KEY = randomBytes(32);
const BODY = Buffer.from('{"ref":"refs/heads/main","after":"9f1c"}');

test('a signed event id is the key itself, as before', (t) => {
  t.is(deliveryIdempotencyKey(KEY, { signedEventId: 'evt_1QxYz2AbCdEf', signedTimestamp: true }), 'evt_1QxYz2AbCdEf');
});

test('signed content: a keyed digest of the signed bytes, told apart from every event id', (t) => {
  const key = deliveryIdempotencyKey(KEY, { signedContent: [BODY], signedTimestamp: false });
  t.regex(key, /^signed content [0-9a-f]{64}$/);
  // An event id never contains a space (verification's isEventId), so no signed id can name this execution.
  t.true(key.includes(' '));
  t.false(key.includes(BODY.toString('hex')), 'the bytes themselves are not in the key');
  // The same bytes, however split into parts, are the same delivery: the signature cannot tell them apart either.
  t.is(deliveryIdempotencyKey(KEY, { signedContent: ['{"ref":', BODY.subarray(7)], signedTimestamp: false }), key);
  t.not(
    deliveryIdempotencyKey(KEY, { signedContent: [Buffer.concat([BODY, Buffer.from(' ')])], signedTimestamp: false }),
    key,
  );
  t.not(deliveryIdempotencyKey(KEY, { signedContent: ['1700000000.', BODY], signedTimestamp: true }), key);
  // Keyed: who reads an execution id cannot confirm a guessed body without the engines' key.
  t.not(deliveryIdempotencyKey(randomBytes(32), { signedContent: [BODY], signedTimestamp: false }), key);
});

test('FLOWHOOK_HOOK_REPLAY_WINDOW: 30 days unless set, never below 3 days, a wrong value names the variable', (t) => {
  const day = 86_400_000;
  const readReplayWindow = (env: Record<string, string>) =>
    readEngineConfig({ FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', ...env }).hookReplayWindowMs;
  t.is(readReplayWindow({}), 30 * day);
  t.is(readReplayWindow({ FLOWHOOK_HOOK_REPLAY_WINDOW: '' }), 30 * day);
  t.is(readReplayWindow({ FLOWHOOK_HOOK_REPLAY_WINDOW: '3d' }), 3 * day);
  t.is(readReplayWindow({ FLOWHOOK_HOOK_REPLAY_WINDOW: '400d' }), 400 * day);
  t.throws(() => readReplayWindow({ FLOWHOOK_HOOK_REPLAY_WINDOW: '1d' }), {
    message: /^FLOWHOOK_HOOK_REPLAY_WINDOW must be a duration of at least 3d .*redelivery.*got "1d"$/,
  });
  t.throws(() => readReplayWindow({ FLOWHOOK_HOOK_REPLAY_WINDOW: 'forever' }), {
    message: /FLOWHOOK_HOOK_REPLAY_WINDOW/,
  });
  t.is(
    readEngineConfig({ FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', FLOWHOOK_HOOK_REPLAY_WINDOW: '7d' })
      .hookReplayWindowMs,
    7 * day,
  );
});
