// The overview's call figures from the engine's own metrics: calls per minute
// as differences of the counter between minute snapshots (the running minute
// against the live values), per company, and answer-time quantiles from the
// histogram's buckets as Prometheus' histogram_quantile computes them.
import test from 'ava';
import { createEngineMetrics } from '../../engine/domain/metrics/engine-metrics.ts';
import { OVERVIEW_MINUTES, quantile, startCallMinutes } from '../../engine/domain/metrics/call-minutes.ts';

test('quantiles interpolate linearly inside the bucket the rank falls in', (t) => {
  const bounds = [0.1, 0.5, 1, Infinity];
  // 10 answers: 4 under 100 ms, 4 more under 500 ms, 2 more under 1 s.
  const cumulative = [4, 8, 10, 10];
  t.is(quantile(0.5, bounds, cumulative), 0.1 + 0.4 * (1 / 4));
  t.is(quantile(0.95, bounds, cumulative), 0.5 + 0.5 * (1.5 / 2));
  t.is(quantile(0.5, bounds, [0, 0, 0, 0]), 0, 'no answers: no figure');
  t.is(quantile(0.99, bounds, [0, 0, 0, 5]), 1, 'beyond the last bound: the highest finite bound');
});

test("a minute's calls are counted in that minute, per company and outcome", async (t) => {
  const metrics = createEngineMetrics();
  const now = Date.parse('2026-11-26T10:00:30Z');
  const minutes = await startCallMinutes(metrics.registry.registry, () => now);
  t.teardown(() => {
    minutes.close();
    metrics.registry.close();
  });
  const call = (company: string, outcome: 'INSTANT_RETURN' | 'RESPONDED') => {
    const record = metrics.webhookCall();
    record.flowResolved(company, 'orders', outcome === 'INSTANT_RETURN' ? 'INSTANT_RETURN' : 'WAIT_FOR_RESPONSE_STEP');
    record.answered(outcome);
  };
  call('Acme', 'INSTANT_RETURN');
  call('Acme', 'INSTANT_RETURN');
  call('Globex', 'RESPONDED');
  const first = await minutes.overview('Acme');
  t.is(first.minutes.length, OVERVIEW_MINUTES);
  t.deepEqual(first.minutes.at(-1)!.minute, new Date('2026-11-26T10:00:00Z'));
  t.is(first.minutes.at(-1)!.counts.instant_return, 2);
  t.is(first.minutes.at(-1)!.counts.responded, 0, "another company's calls are not Acme's");
  t.is(first.answeredCalls, 2);
  t.true(first.p50Seconds > 0);
  t.true(first.minutes.slice(0, -1).every((minute) => Object.values(minute.counts).every((count) => count === 0)));
  t.is((await minutes.overview('Globex')).minutes.at(-1)!.counts.responded, 1);
});
