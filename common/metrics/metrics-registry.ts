// One prom-client Registry per component instance (facade, engine, worker):
// `flowhook start` runs all three in one process and the tests run several
// stacks in one process, so nothing here may live in the global default
// registry or in module-level metric objects, or their series would collide.
//
// The Node.js process metrics (CPU, memory, event loop, GC) describe the
// process, not a component: they are collected into one registry per process
// only (the first component that starts), so the all-in-one does not export
// the same process three times. When that component stops, the next one to
// start takes them over. flowhook_threads* (thread-heaps.ts) belong to them:
// the heaps of the process's worker threads, which nodejs_heap_* leaves out.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Series } from './label-values.ts';
import { registerThreadHeapMetrics } from './thread-heaps.ts';

export interface MetricsRegistry {
  registry: Registry;
  /** Whether this registry carries the process metrics (process_*, nodejs_*). */
  processMetrics: boolean;
  /** The exposition text (Prometheus text format 0.0.4). */
  text(): Promise<string>;
  /** Releases the process metrics for the next component that starts in this process. */
  close(): void;
  /** A counter of this registry, by the labels named; its children bound once per combination of values. */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Series<Counter<L>>;
  /** A histogram of this registry, in seconds: `buckets` are CALL_SECONDS_BUCKETS or STEP_SECONDS_BUCKETS. */
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: readonly number[],
  ): Series<Histogram<L>>;
  /** A gauge of this registry, without labels. */
  gauge(name: string, help: string): Gauge;
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

// Which registry owns the process metrics in this process (ownership, not a metric).
let processMetricsOwner: Registry | undefined;

export function createMetricsRegistry(): MetricsRegistry {
  const registry = new Registry();
  const processMetrics = processMetricsOwner === undefined;
  if (processMetrics) {
    processMetricsOwner = registry;
    collectDefaultMetrics({ register: registry });
    registerThreadHeapMetrics(registry);
  }
  const registers = [registry];
  return {
    registry,
    processMetrics,
    text: () => registry.metrics(),
    close() {
      if (processMetricsOwner === registry) processMetricsOwner = undefined;
    },
    counter: (name, help, labelNames) => new Series(new Counter({ name, help, labelNames, registers })),
    histogram: (name, help, labelNames, buckets) =>
      new Series(new Histogram({ name, help, labelNames, buckets: [...buckets], registers })),
    gauge: (name, help) => new Gauge({ name, help, registers }),
  };
}

/** Buckets in seconds for calls that answer in milliseconds but may wait a whole sync window (30 s default). */
export const CALL_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Buckets in seconds for flow steps: instant steps, outbound calls, and sleeps of minutes to days. */
export const STEP_SECONDS_BUCKETS = [0.001, 0.01, 0.1, 0.5, 1, 5, 30, 60, 300, 3600, 86400];
