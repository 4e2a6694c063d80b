// The JavaScript heaps of the process's worker threads, as metrics. prom-client's
// nodejs_heap_* series describe the main thread only, yet in the worker the
// Temporal SDK runs every workflow in a thread of its own (one V8 isolate, whose
// heap is as large as the main one under load): without these series an operator
// reading /metrics cannot tell the workflow isolate from native memory.
//
// Threads are found through Node's built-in `worker_threads` diagnostics channel,
// which reports every thread the process creates; subscribing when this module is
// loaded (at startup, before the worker creates its threads) sees them all, and a
// thread is forgotten when it exits. Heap statistics are read when scraped only.
import { subscribe } from 'node:diagnostics_channel';
import type { Worker } from 'node:worker_threads';
import { Gauge, type Registry } from 'prom-client';

const liveThreads = new Set<Worker>();

subscribe('worker_threads', (message) => {
  const { worker } = message as { worker: Worker };
  liveThreads.add(worker);
  worker.once('exit', () => liveThreads.delete(worker));
});

export interface ThreadHeaps {
  threads: number;
  /** Bytes V8 has reserved for the threads' heaps (what counts towards resident memory). */
  totalBytes: number;
  usedBytes: number;
}

/** Sums the live threads' heap statistics; a thread that exits while asked is left out. */
export async function threadHeaps(): Promise<ThreadHeaps> {
  const stats = await Promise.all([...liveThreads].map((thread) => thread.getHeapStatistics().catch(() => undefined)));
  const read = stats.filter((s) => s !== undefined);
  return {
    threads: read.length,
    totalBytes: read.reduce((sum, s) => sum + s.total_heap_size, 0),
    usedBytes: read.reduce((sum, s) => sum + s.used_heap_size, 0),
  };
}

/** Registers flowhook_threads and the two heap gauges; their values are read on each scrape. */
export function registerThreadHeapMetrics(registry: Registry): void {
  // Each gauge reads for itself (one message to each thread): a read shared between the gauges of
  // one scrape could still be handed to the next scrape, showing a thread that has exited since.
  const read = threadHeaps;
  const gauge = (name: string, help: string, pick: (heaps: ThreadHeaps) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(pick(await read()));
      },
    });
  gauge(
    'flowhook_threads',
    'Worker threads of this process (in the worker: the Temporal workflow thread).',
    (h) => h.threads,
  );
  gauge(
    'flowhook_threads_heap_total_bytes',
    'V8 heap reserved by the worker threads of this process, together (nodejs_heap_* is the main thread only).',
    (h) => h.totalBytes,
  );
  gauge(
    'flowhook_threads_heap_used_bytes',
    'V8 heap in use by the worker threads of this process, together.',
    (h) => h.usedBytes,
  );
}
