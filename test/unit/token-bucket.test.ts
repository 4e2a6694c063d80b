import test from 'ava';
import { KeyedRateLimiter, MAX_LIMITER_KEYS, TokenBucket } from '../../engine/domain/limits/rate-limiters.ts';
import { createWebhookLimits } from '../../engine/domain/limits/webhook-limits.ts';
import { RateLimitedError } from '../../engine/errors.ts';

test('a bucket allows its burst at once, then refills at its rate', (t) => {
  const bucket = new TokenBucket(2, 3, 0);
  t.deepEqual(
    [bucket.take(0), bucket.take(0), bucket.take(0)].map((r) => r.allowed),
    [true, true, true],
  );
  t.deepEqual(bucket.take(0), { allowed: false, retryAfterSeconds: 1 });
  // Half a second at 2/s is one token.
  t.true(bucket.take(500).allowed);
  t.false(bucket.take(500).allowed);
  // Back to its full burst, and no further.
  t.deepEqual(
    [bucket.take(10_000), bucket.take(10_000), bucket.take(10_000), bucket.take(10_000)].map((r) => r.allowed),
    [true, true, true, false],
  );
});

test('Retry-After is the time to the next token in whole seconds, never 0', (t) => {
  const bucket = new TokenBucket(0.25, 1, 0);
  t.true(bucket.take(0).allowed);
  t.deepEqual(bucket.take(0), { allowed: false, retryAfterSeconds: 4 });
  t.deepEqual(bucket.take(3500), { allowed: false, retryAfterSeconds: 1 });
  t.true(bucket.take(4000).allowed);
});

test('keys have separate buckets; at the bound a bucket is forgotten only once it is full again', (t) => {
  const limiter = new KeyedRateLimiter(1, 1, 2);
  t.true(limiter.take('a', 0).allowed);
  t.false(limiter.take('a', 0).allowed);
  t.true(limiter.take('b', 0).allowed);
  // Both drained: a third key finds no room, and shares the overflow bucket with any other newcomer.
  t.true(limiter.take('c', 0).allowed);
  t.false(limiter.take('d', 0).allowed, 'the overflow bucket is drained too');
  t.is(limiter.size, 2);
  t.false(limiter.take('b', 0).allowed, "'b' kept its empty bucket");
  // A second later both are full again: forgetting one changes nothing, so a new key gets its own.
  t.true(limiter.take('a', 1000).allowed);
  t.true(limiter.take('c', 1500).allowed, "'c' took the place of 'b', full since 1 s");
  t.is(limiter.size, 2);
  t.false(limiter.take('c', 1500).allowed, "'c' has a bucket of its own now");
});

test('a flood of made-up names does not hand a drained key its burst back', (t) => {
  // 1 call a second, bursts of 5: the target's bucket is drained at 0 and full again at 5 s.
  const limiter = new KeyedRateLimiter(1, 5);
  for (let i = 0; i < 5; i++) t.true(limiter.take('target', 0).allowed);
  t.false(limiter.take('target', 0).allowed);
  // Twice as many made-up names as the limiter remembers, none of them the target's.
  for (let i = 0; i < MAX_LIMITER_KEYS * 2; i++) limiter.take(`made-up-${i}`, 100);
  t.true(limiter.size <= MAX_LIMITER_KEYS);
  t.false(limiter.take('target', 500).allowed, 'half a token earned back since: still refused');
  t.true(limiter.take('target', 1000).allowed, 'it refills at its rate, no faster');
  t.false(limiter.take('target', 1000).allowed);
});

test('the provider route limit: unsigned requests to made-up routes do not reopen a drained route', (t) => {
  let now = 0;
  const off = { perSecond: 0, burst: 1 };
  const limits = createWebhookLimits(
    { perCaller: off, perActivity: off, perHookRoute: { perSecond: 1, burst: 3 }, maxConcurrentSyncCalls: 0 },
    () => now,
  );
  for (let i = 0; i < 3; i++) limits.admitHookRoute('Acme', 'payments.stripe');
  t.throws(() => limits.admitHookRoute('Acme', 'payments.stripe'), { instanceOf: RateLimitedError });
  now = 200;
  for (let i = 0; i < MAX_LIMITER_KEYS + 100; i++) {
    try {
      limits.admitHookRoute('Acme', `made-up-${i}`);
    } catch {
      // The made-up routes past the bound share one bucket: most of them are refused, which is the point.
    }
  }
  t.throws(
    () => limits.admitHookRoute('Acme', 'payments.stripe'),
    { instanceOf: RateLimitedError },
    'still drained after the flood',
  );
});

test('a flood of long made-up keys keeps at most MAX_LIMITER_KEYS buckets, and a busy key keeps its state', (t) => {
  const limiter = new KeyedRateLimiter(1, 2);
  t.true(limiter.take('real-route', 0).allowed);
  t.true(limiter.take('real-route', 0).allowed);
  for (let i = 0; i < MAX_LIMITER_KEYS * 2; i++) {
    limiter.take(`${'x'.repeat(7000)}-${i}`, 0);
    if (i % 1000 === 0) t.false(limiter.take('real-route', 0).allowed);
  }
  t.is(limiter.size, MAX_LIMITER_KEYS);
});

test('idle keys make room for new ones once their buckets are full again', (t) => {
  const limiter = new KeyedRateLimiter(10, 2, 100);
  for (let i = 0; i < 100; i++) limiter.take(`old-${i}`, 0);
  // Two tokens at ten a second: every old bucket is full by 200 ms, so new keys each get their own.
  for (let i = 0; i < 100; i++) {
    t.true(limiter.take(`new-${i}`, 1000).allowed);
    t.true(limiter.take(`new-${i}`, 1000).allowed);
    t.false(limiter.take(`new-${i}`, 1000).allowed, `new-${i} has a bucket of its own`);
  }
  t.is(limiter.size, 100);
});

test('the sync-call cap refuses beyond its size and frees a slot once, however often released', (t) => {
  const limits = createWebhookLimits({
    perCaller: { perSecond: 0, burst: 1 },
    perActivity: { perSecond: 0, burst: 1 },
    maxConcurrentSyncCalls: 2,
  });
  const first = limits.acquireSyncSlot();
  limits.acquireSyncSlot();
  const refused = t.throws(() => limits.acquireSyncSlot(), { instanceOf: RateLimitedError });
  t.is(refused?.retryAfterSeconds, 1);
  first();
  first();
  limits.acquireSyncSlot();
  t.throws(() => limits.acquireSyncSlot(), { instanceOf: RateLimitedError });
});

test('rate 0 turns a limit off', (t) => {
  const limits = createWebhookLimits(
    { perCaller: { perSecond: 0, burst: 1 }, perActivity: { perSecond: 0, burst: 1 }, maxConcurrentSyncCalls: 0 },
    () => 0,
  );
  for (let i = 0; i < 100; i++) {
    limits.admitCaller('user:a');
    limits.admitActivity('c', 'a');
    limits.acquireSyncSlot();
  }
  t.pass();
});
