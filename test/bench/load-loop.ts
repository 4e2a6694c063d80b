// A closed-loop load generator: `concurrency` callers each issue one call
// after another for a fixed time. The same loop drives every scenario, so the
// ratios compare flowhook with its floors, not two different load tools.

export interface LoadResult {
  concurrency: number;
  calls: number;
  errors: number;
  firstError?: string;
  seconds: number;
  throughput: number;
  p50: number;
  p99: number;
}

export interface LoadOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** One call; throws (or rejects) when the call did not do what it must. */
  call: () => Promise<void>;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  await drive(options.concurrency, options.warmupMs, options.call, undefined);
  const latencies: number[] = [];
  const failures: { count: number; first?: string } = { count: 0 };
  const started = performance.now();
  await drive(options.concurrency, options.durationMs, options.call, { latencies, failures });
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    concurrency: options.concurrency,
    calls: latencies.length + failures.count,
    errors: failures.count,
    firstError: failures.first,
    seconds: round(seconds),
    throughput: round(latencies.length / seconds),
    p50: round(percentile(latencies, 0.5)),
    p99: round(percentile(latencies, 0.99)),
  };
}

async function drive(
  concurrency: number,
  durationMs: number,
  call: () => Promise<void>,
  record: { latencies: number[]; failures: { count: number; first?: string } } | undefined,
): Promise<void> {
  const until = performance.now() + durationMs;
  const caller = async () => {
    while (performance.now() < until) {
      const start = performance.now();
      try {
        await call();
        record?.latencies.push(performance.now() - start);
      } catch (error) {
        if (record) {
          record.failures.count++;
          record.failures.first ??= error instanceof Error ? error.message : String(error);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const round = (value: number) => Math.round(value * 100) / 100;
