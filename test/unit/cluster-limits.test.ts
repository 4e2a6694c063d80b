// Cluster-wide admission control: each engine applies 1/N of every limit with
// N live engines (engine/domain/limits/cluster-share.ts), buckets adopt a new share
// without refilling, and the per-company and global limits refuse all or
// nothing together with the per-activity one.
import test from 'ava';
import { capShare, liveNodeCount, rateShare } from '../../engine/domain/limits/cluster-share.ts';
import { KeyedRateLimiter, TokenBucket } from '../../engine/domain/limits/rate-limiters.ts';
import {
  createWebhookLimits,
  LimitRefusedError,
  type WebhookLimitSettings,
} from '../../engine/domain/limits/webhook-limits.ts';
import { RateLimitedError } from '../../engine/errors.ts';
import { createEngineMetrics } from '../../engine/domain/metrics/engine-metrics.ts';
import { meteredLimits } from '../../engine/domain/metrics/metered-webhook.ts';
import { fairnessKeyOf } from '../../engine/domain/executions/execution-start-options.ts';

const OFF = { perSecond: 0, burst: 1 };
const settings = (overrides: Partial<WebhookLimitSettings>): WebhookLimitSettings => ({
  perCaller: OFF,
  perActivity: OFF,
  maxConcurrentSyncCalls: 0,
  ...overrides,
});

/** How many of `calls` takes at one instant pass. */
function admitted(admit: () => void, calls: number): number {
  let passed = 0;
  for (let i = 0; i < calls; i++) {
    try {
      admit();
      passed++;
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
    }
  }
  return passed;
}

test('the share divides rate and burst by the live engines, never below one token of burst', (t) => {
  t.deepEqual(rateShare({ perSecond: 100, burst: 200 }, 1), { perSecond: 100, burst: 200 });
  t.deepEqual(rateShare({ perSecond: 100, burst: 200 }, 4), { perSecond: 25, burst: 50 });
  t.deepEqual(rateShare({ perSecond: 1, burst: 3 }, 2), { perSecond: 0.5, burst: 1.5 });
  t.deepEqual(rateShare({ perSecond: 1, burst: 2 }, 10), { perSecond: 0.1, burst: 1 });
  // N engines together never hold more than the configured burst (or one token each, if that is more).
  for (const nodes of [1, 2, 3, 7]) t.true(rateShare({ perSecond: 10, burst: 20 }, nodes).burst * nodes <= 20 + 1e-9);
});

test('the sync cap share is rounded up, at least 1, and 0 stays off', (t) => {
  t.is(capShare(1000, 1), 1000);
  t.is(capShare(1000, 3), 334);
  t.is(capShare(1, 2), 1);
  t.is(capShare(5, 2), 3);
  t.is(capShare(0, 4), 0);
});

test('a count that is not at least 1 counts as this engine alone', (t) => {
  t.is(liveNodeCount(0), 1);
  t.is(liveNodeCount(Number.NaN), 1);
  t.is(liveNodeCount(-3), 1);
  t.is(liveNodeCount(3), 3);
});

test('a bucket adopting a smaller share keeps at most the new burst', (t) => {
  const bucket = new TokenBucket(10, 10, 0);
  bucket.adopt(5, 5, 0);
  t.is(
    admitted(() => takeOrThrow(bucket, 0), 10),
    5,
  );
  // Refills at the new rate: 5 per second.
  t.is(
    admitted(() => takeOrThrow(bucket, 1000), 10),
    5,
  );
});

test('a bucket adopting a larger share gets no burst it has not earned', (t) => {
  const bucket = new TokenBucket(5, 5, 0);
  t.is(
    admitted(() => takeOrThrow(bucket, 0), 5),
    5,
  );
  bucket.adopt(10, 10, 0);
  t.false(bucket.take(0).allowed, 'no tokens were gifted by the larger burst');
  // From now on it refills at 10 per second up to 10.
  t.is(
    admitted(() => takeOrThrow(bucket, 500), 10),
    5,
  );
  t.is(
    admitted(() => takeOrThrow(bucket, 5000), 20),
    10,
  );
});

test('the time before a change refills at the old rate', (t) => {
  const bucket = new TokenBucket(2, 10, 0);
  t.is(
    admitted(() => takeOrThrow(bucket, 0), 10),
    10,
  );
  // One second at 2/s earns 2 tokens, then the rate drops: those 2 are kept.
  bucket.adopt(1, 10, 1000);
  t.is(
    admitted(() => takeOrThrow(bucket, 1000), 10),
    2,
  );
});

test('a keyed limiter hands a new share to its buckets and to buckets made later', (t) => {
  const limiter = new KeyedRateLimiter(4, 4);
  t.true(limiter.take('a', 0).allowed);
  limiter.adopt(2, 2, 0);
  t.is(
    admitted(() => keyedOrThrow(limiter, 'a', 0), 10),
    2,
  );
  t.is(
    admitted(() => keyedOrThrow(limiter, 'b', 0), 10),
    2,
  );
});

test('with N live engines each admits 1/N; when one leaves the others get its share without a refill', (t) => {
  let now = 0;
  const limits = createWebhookLimits(settings({ perActivity: { perSecond: 10, burst: 20 } }), () => now, 2);
  t.is(limits.liveNodes, 2);
  t.is(
    admitted(() => limits.admitActivity('Acme', 'orders'), 50),
    10,
  );
  limits.setLiveNodes(1);
  t.is(
    admitted(() => limits.admitActivity('Acme', 'orders'), 50),
    0,
    'the emptied bucket is not topped up',
  );
  now = 1000;
  t.is(
    admitted(() => limits.admitActivity('Acme', 'orders'), 50),
    10,
    'a second at the whole rate',
  );
  // A key seen for the first time starts with the whole burst.
  t.is(
    admitted(() => limits.admitActivity('Acme', 'invoices'), 50),
    20,
  );
  limits.setLiveNodes(4);
  now = 2000;
  t.is(
    admitted(() => limits.admitActivity('Acme', 'other'), 50),
    5,
  );
  t.is(
    admitted(() => limits.admitActivity('Acme', 'orders'), 50),
    2,
    'a second at a quarter of the rate: 2.5 tokens',
  );
});

test('two engines on one share admit together what one engine alone would', (t) => {
  let now = 0;
  const one = createWebhookLimits(settings({ perActivity: { perSecond: 7, burst: 9 } }), () => now, 1);
  const a = createWebhookLimits(settings({ perActivity: { perSecond: 7, burst: 9 } }), () => now, 2);
  const b = createWebhookLimits(settings({ perActivity: { perSecond: 7, burst: 9 } }), () => now, 2);
  let alone = 0;
  let together = 0;
  for (now = 0; now < 10_000; now += 50) {
    alone += admitted(() => one.admitActivity('c', 'x'), 5);
    together += admitted(() => a.admitActivity('c', 'x'), 5) + admitted(() => b.admitActivity('c', 'x'), 5);
  }
  // 9 at once, then 7 a second for just under 10 s (the 70th token is due at 10 s exactly, where
  // floating-point rounding of the refills would decide); fractional buckets on two engines lose at
  // most a token each.
  t.is(alone, 9 + 69);
  t.true(together <= alone && together >= alone - 2, `alone ${alone}, together ${together}`);
});

test('the sync cap follows the share: ⌈cap/N⌉ slots, slots already held stay held', (t) => {
  const limits = createWebhookLimits(settings({ maxConcurrentSyncCalls: 5 }), () => 0, 2);
  const held = [limits.acquireSyncSlot(), limits.acquireSyncSlot(), limits.acquireSyncSlot()];
  const refused = t.throws(() => limits.acquireSyncSlot(), { instanceOf: LimitRefusedError });
  t.is(refused?.limit, 'sync_calls');
  t.regex(refused!.message, /at most 5 at once, 3 on this engine of 2; FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS/);
  limits.setLiveNodes(1);
  limits.acquireSyncSlot();
  limits.acquireSyncSlot();
  t.throws(() => limits.acquireSyncSlot(), { instanceOf: LimitRefusedError });
  limits.setLiveNodes(5);
  for (const release of held) release();
  // 2 still held, the share is 1: full.
  t.throws(() => limits.acquireSyncSlot(), { instanceOf: LimitRefusedError });
});

test('per-company and global limits refuse with their name and variable; a refused call takes no token from any limit', (t) => {
  const limits = createWebhookLimits(
    settings({
      perActivity: { perSecond: 1, burst: 3 },
      perCompany: { perSecond: 1, burst: 4 },
      global: { perSecond: 1, burst: 6 },
    }),
    () => 0,
  );
  t.is(
    admitted(() => limits.admitActivity('Acme', 'a'), 3),
    3,
  );
  const byActivity = t.throws(() => limits.admitActivity('Acme', 'a'), { instanceOf: LimitRefusedError });
  t.is(byActivity?.limit, 'activity');
  t.regex(byActivity!.message, /activity "a" in company "Acme" \(FLOWHOOK_RATE_LIMIT_PER_ACTIVITY\); retry after 1 s/);
  // The refused calls above took nothing from the company's budget: one left of 4.
  t.is(
    admitted(() => limits.admitActivity('Acme', 'b'), 1),
    1,
  );
  const byCompany = t.throws(() => limits.admitActivity('Acme', 'c'), { instanceOf: LimitRefusedError });
  t.is(byCompany?.limit, 'company');
  t.regex(
    byCompany!.message,
    /^Too many calls for company "Acme" \(FLOWHOOK_RATE_LIMIT_PER_COMPANY\); retry after 1 s$/,
  );
  // Two left of the global 6.
  t.is(
    admitted(() => limits.admitActivity('Other', 'a'), 2),
    2,
  );
  const byGlobal = t.throws(() => limits.admitActivity('Other', 'b'), { instanceOf: LimitRefusedError });
  t.is(byGlobal?.limit, 'global');
  t.regex(
    byGlobal!.message,
    /^Too many calls for all companies together \(FLOWHOOK_RATE_LIMIT_GLOBAL\); retry after 1 s$/,
  );
  t.is(byGlobal?.retryAfterSeconds, 1);
});

test('the refusal names the narrowest limit and the longest wait', (t) => {
  const limits = createWebhookLimits(
    settings({ perActivity: { perSecond: 1, burst: 1 }, global: { perSecond: 0.25, burst: 2 } }),
    () => 0,
  );
  limits.admitActivity('Acme', 'a');
  const first = t.throws(() => limits.admitActivity('Acme', 'a'), { instanceOf: LimitRefusedError });
  t.deepEqual([first?.limit, first?.retryAfterSeconds], ['activity', 1]);
  limits.admitActivity('Acme', 'b');
  // Both refuse now: named by the activity, but a retry is only worth it once the global bucket has a token (4 s).
  const both = t.throws(() => limits.admitActivity('Acme', 'b'), { instanceOf: LimitRefusedError });
  t.deepEqual([both?.limit, both?.retryAfterSeconds], ['activity', 4]);
  t.is(t.throws(() => limits.admitActivity('Acme', 'c'), { instanceOf: LimitRefusedError })?.limit, 'global');
});

test('the new limits are off unless configured, and count in the metric under their own label', async (t) => {
  const off = createWebhookLimits(settings({}), () => 0);
  t.is(
    admitted(() => off.admitActivity('Acme', 'a'), 1000),
    1000,
  );
  const metrics = createEngineMetrics();
  const limits = meteredLimits(
    createWebhookLimits(
      settings({ perCompany: { perSecond: 1, burst: 1 }, global: { perSecond: 1, burst: 2 } }),
      () => 0,
    ),
    metrics,
  );
  limits.admitActivity('Acme', 'a');
  t.throws(() => limits.admitActivity('Acme', 'b'));
  limits.admitActivity('Other', 'a');
  t.throws(() => limits.admitActivity('Third', 'a'));
  const text = await metrics.registry.text();
  t.regex(text, /flowhook_engine_rate_limited_total\{limit="company"\} 1/);
  t.regex(text, /flowhook_engine_rate_limited_total\{limit="global"\} 1/);
  t.regex(text, /flowhook_engine_rate_limited_total\{limit="activity"\} 0/);
  t.regex(text, /flowhook_engine_live_engines 1/);
  metrics.liveEngines(3);
  t.regex(await metrics.registry.text(), /flowhook_engine_live_engines 3/);
});

test('the fairness key is the company name, shortened with a digest beyond 64 bytes', (t) => {
  t.is(fairnessKeyOf('Acme Ltd.'), 'Acme Ltd.');
  t.is(fairnessKeyOf('x'.repeat(64)), 'x'.repeat(64));
  const long = fairnessKeyOf('x'.repeat(65));
  t.true(Buffer.byteLength(long) <= 64);
  t.not(long, fairnessKeyOf(`${'x'.repeat(64)}y`), 'names with the same start stay apart');
  t.is(long, fairnessKeyOf('x'.repeat(65)), 'stable');
  const multibyte = fairnessKeyOf('Ü'.repeat(40));
  t.true(Buffer.byteLength(multibyte) <= 64);
  t.true(multibyte.startsWith('Ü'.repeat(23)));
  t.false(multibyte.includes('\uFFFD'));
});

function takeOrThrow(bucket: TokenBucket, now: number): void {
  const result = bucket.take(now);
  if (!result.allowed) throw new RateLimitedError('refused', result.retryAfterSeconds);
}

function keyedOrThrow(limiter: KeyedRateLimiter, key: string, now: number): void {
  const result = limiter.take(key, now);
  if (!result.allowed) throw new RateLimitedError('refused', result.retryAfterSeconds);
}
