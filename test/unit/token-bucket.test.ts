import test from 'ava';
import { KeyedRateLimiter, MAX_LIMITER_KEYS, TokenBucket } from '../../engine/limits/token-bucket.ts';
import { createWebhookLimits } from '../../engine/limits/webhook-limits.ts';
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

test('keys have separate buckets; at the bound the least recently used key is forgotten', (t) => {
  const limiter = new KeyedRateLimiter(1, 1, 2);
  t.true(limiter.take('a', 0).allowed);
  t.false(limiter.take('a', 0).allowed);
  t.true(limiter.take('b', 0).allowed);
  // 'a' used last: a third key makes room by forgetting 'b'.
  t.false(limiter.take('a', 0).allowed);
  t.true(limiter.take('c', 0).allowed);
  t.is(limiter.size, 2);
  t.false(limiter.take('a', 0).allowed, "'a' kept its empty bucket");
  t.true(limiter.take('b', 0).allowed, "'b' starts again with a full bucket");
});

test('a flood of long made-up keys keeps at most MAX_LIMITER_KEYS buckets, and a busy key keeps its state', (t) => {
  const limiter = new KeyedRateLimiter(1, 2);
  t.true(limiter.take('real-route', 0).allowed);
  t.true(limiter.take('real-route', 0).allowed);
  for (let i = 0; i < MAX_LIMITER_KEYS * 2; i++) {
    limiter.take(`${'x'.repeat(7000)}-${i}`, 0);
    // The real route is called between the made-up ones, so it stays among the recently used.
    if (i % 1000 === 0) t.false(limiter.take('real-route', 0).allowed);
  }
  t.is(limiter.size, MAX_LIMITER_KEYS);
});

test('the sync-call cap refuses beyond its size and frees a slot once, however often released', (t) => {
  const limits = createWebhookLimits({ perCaller: { perSecond: 0, burst: 1 }, perActivity: { perSecond: 0, burst: 1 }, maxConcurrentSyncCalls: 2 });
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
  const limits = createWebhookLimits({ perCaller: { perSecond: 0, burst: 1 }, perActivity: { perSecond: 0, burst: 1 }, maxConcurrentSyncCalls: 0 }, () => 0);
  for (let i = 0; i < 100; i++) {
    limits.admitCaller('user:a');
    limits.admitActivity('c', 'a');
    limits.acquireSyncSlot();
  }
  t.pass();
});
