// The console's overview reads the engine's own metrics: its webhook call
// counter (by company and outcome) and its answer-time histogram by company.
// Both are running totals since the process started, so once a minute (on the
// first tick after the minute turned) a snapshot of them is kept for an hour;
// a minute's calls are the difference between the snapshots around it, the
// running minute's the difference to the live values. Answer-time quantiles
// come from the histogram's buckets as Prometheus' histogram_quantile
// computes them (linear within a bucket). Every figure is this engine
// process's: other engines of a deployment count their own calls
// (docs/console.md says how to see them all).
import type { Registry } from 'prom-client';
import { CALL_OUTCOMES } from '../../../common/metrics/call-labels.ts';

export const CALLS_METRIC = 'flowhook_engine_webhook_calls_total';
export const ANSWER_METRIC = 'flowhook_engine_answer_duration_seconds';
const MINUTE_MS = 60_000;
export const OVERVIEW_MINUTES = 60;
const TICK_MS = 5_000;

/** A histogram's values name their series (`…_bucket`, `…_sum`, `…_count`). */
type HistogramValue = { value: number; labels: Record<string, string | number | undefined>; metricName?: string };

interface Snapshot {
  minute: number;
  /** `${company}\0${outcome}` → calls so far. */
  calls: Map<string, number>;
  /** company → cumulative bucket counts, in `bounds` order, the last one +Inf. */
  buckets: Map<string, number[]>;
}

export interface CallMinutesOverview {
  /** Oldest first, OVERVIEW_MINUTES of them; the last is the minute now running. */
  minutes: { minute: Date; counts: Record<string, number> }[];
  p50Seconds: number;
  p95Seconds: number;
  answeredCalls: number;
  countingSince: Date;
}

export interface CallMinutes {
  overview(company: string): Promise<CallMinutesOverview>;
  close(): void;
}

export async function startCallMinutes(registry: Registry, now: () => number = Date.now): Promise<CallMinutes> {
  const startedAt = now();
  const snapshots: Snapshot[] = [await snapshot(registry, Math.floor(startedAt / MINUTE_MS))];
  let taking = false;
  const timer = setInterval(() => {
    const minute = Math.floor(now() / MINUTE_MS);
    if (taking || snapshots.at(-1)!.minute === minute) return;
    taking = true;
    void snapshot(registry, minute)
      .then((taken) => {
        snapshots.push(taken);
        while (snapshots.length > OVERVIEW_MINUTES + 1) snapshots.shift();
      })
      .finally(() => (taking = false));
  }, TICK_MS);
  timer.unref();

  return {
    async overview(company) {
      const current = Math.floor(now() / MINUTE_MS);
      const live = await snapshot(registry, current + 1);
      // The totals at a minute's start: the first snapshot taken in or after it (the live values when none is).
      const at = (minute: number) => snapshots.find((taken) => taken.minute >= minute) ?? live;
      const minutes = [];
      for (let minute = current - OVERVIEW_MINUTES + 1; minute <= current; minute++) {
        const [from, to] = [at(minute), minute === current ? live : at(minute + 1)];
        const counts = Object.fromEntries(
          CALL_OUTCOMES.map((outcome) => [outcome, callsOf(to, company, outcome) - callsOf(from, company, outcome)]),
        );
        minutes.push({ minute: new Date(minute * MINUTE_MS), counts });
      }
      const first = at(current - OVERVIEW_MINUTES + 1);
      const bounds = await bucketBounds(registry);
      const later = live.buckets.get(company) ?? [];
      const earlier = first.buckets.get(company) ?? [];
      const hour = later.map((count, index) => count - (earlier[index] ?? 0));
      return {
        minutes,
        p50Seconds: quantile(0.5, bounds, hour),
        p95Seconds: quantile(0.95, bounds, hour),
        answeredCalls: hour.at(-1) ?? 0,
        countingSince: new Date(startedAt),
      };
    },
    close: () => clearInterval(timer),
  };
}

function callsOf(taken: Snapshot, company: string, outcome: string): number {
  return taken.calls.get(`${company}\u0000${outcome}`) ?? 0;
}

async function snapshot(registry: Registry, minute: number): Promise<Snapshot> {
  const calls = new Map<string, number>();
  const counter = await registry.getSingleMetric(CALLS_METRIC)?.get();
  for (const { labels, value } of counter?.values ?? []) {
    const key = `${String(labels.company)}\u0000${String(labels.outcome)}`;
    calls.set(key, (calls.get(key) ?? 0) + value);
  }
  const buckets = new Map<string, number[]>();
  const histogram = await registry.getSingleMetric(ANSWER_METRIC)?.get();
  // prom-client lists each company's buckets in bound order, +Inf last.
  for (const { labels, value, metricName } of (histogram?.values ?? []) as HistogramValue[]) {
    if (metricName !== `${ANSWER_METRIC}_bucket`) continue;
    const company = String(labels.company);
    buckets.set(company, [...(buckets.get(company) ?? []), value]);
  }
  return { minute, calls, buckets };
}

async function bucketBounds(registry: Registry): Promise<number[]> {
  const histogram = await registry.getSingleMetric(ANSWER_METRIC)?.get();
  const bounds: number[] = [];
  for (const { labels, metricName } of (histogram?.values ?? []) as HistogramValue[]) {
    if (metricName !== `${ANSWER_METRIC}_bucket`) continue;
    const bound = labels.le === '+Inf' ? Infinity : Number(labels.le);
    if (bounds.includes(bound)) break;
    bounds.push(bound);
  }
  return bounds;
}

/** histogram_quantile: the bucket the rank falls in, interpolated linearly; the highest finite bound for the +Inf bucket. */
export function quantile(q: number, bounds: readonly number[], cumulative: readonly number[]): number {
  const total = cumulative.at(-1) ?? 0;
  if (total === 0) return 0;
  const rank = q * total;
  const index = cumulative.findIndex((count) => count >= rank);
  const upper = bounds[index] ?? Infinity;
  if (upper === Infinity) return bounds.at(-2) ?? 0;
  const lower = index === 0 ? 0 : bounds[index - 1]!;
  const below = index === 0 ? 0 : cumulative[index - 1]!;
  const inBucket = cumulative[index]! - below;
  return inBucket === 0 ? upper : lower + (upper - lower) * ((rank - below) / inBucket);
}
