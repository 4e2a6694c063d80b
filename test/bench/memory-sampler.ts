// Where each process's memory goes, sampled from its own /metrics once a second
// during the run: the sample with the highest resident size is kept, so the
// report shows the peak split into the main thread's V8 heap, the worker
// threads' heaps (the Temporal workflow isolate), memory V8 tracks outside its
// heap (buffers), and the rest — native: Node itself, the Temporal Rust core,
// malloc arenas, compiled code outside the heap. /proc's VmHWM stays the
// peak of record; a sample may miss the exact top by a second.
import type { BenchProcess } from './bench-stack.ts';

export interface MemoryAtPeak {
  rssMiB: number;
  mainHeapMiB: number;
  threadHeapsMiB: number;
  externalMiB: number;
  /** RSS minus the three above. */
  nativeMiB: number;
  /** The scenario running when the sample was taken (e.g. `B c=50`). */
  during?: string;
}

const SERIES = {
  rss: 'process_resident_memory_bytes',
  mainHeap: 'nodejs_heap_size_total_bytes',
  external: 'nodejs_external_memory_bytes',
  threadHeaps: 'flowhook_threads_heap_total_bytes',
} as const;

type Reading = Record<keyof typeof SERIES, number>;
type Sample = Reading & { during?: string };

export function startMemorySampler(
  processes: BenchProcess[],
  intervalMs = 1000,
): { stop(): Promise<Record<string, MemoryAtPeak>>; during(label: string): void } {
  const peaks = new Map<string, Sample>();
  let running = true;
  let phase: string | undefined;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        processes.map(async (process) => {
          const sample = await sampleOf(process.metricsUrls).catch(() => undefined);
          if (sample && sample.rss > (peaks.get(process.name)?.rss ?? 0))
            peaks.set(process.name, { ...sample, ...(phase && { during: phase }) });
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    /** Names what runs from now on, for the peak's report. */
    during(label: string) {
      phase = label;
    },
    async stop() {
      running = false;
      await loop;
      const MiB = (bytes: number) => Math.round(bytes / 1048576);
      return Object.fromEntries(
        [...peaks].map(([name, s]) => [
          name,
          {
            rssMiB: MiB(s.rss),
            mainHeapMiB: MiB(s.mainHeap),
            threadHeapsMiB: MiB(s.threadHeaps),
            externalMiB: MiB(s.external),
            nativeMiB: MiB(s.rss - s.mainHeap - s.threadHeaps - s.external),
            ...(s.during && { during: s.during }),
          },
        ]),
      );
    },
  };
}

/** The process series live on one of the process's endpoints (under `flowhook start`, the engine's). */
async function sampleOf(urls: string[]): Promise<Reading | undefined> {
  for (const url of urls) {
    const text = await (await fetch(url, { signal: AbortSignal.timeout(2000) })).text();
    const value = (name: string) => Number(new RegExp(`^${name} ([0-9.e+]+)`, 'm').exec(text)?.[1] ?? Number.NaN);
    const sample = Object.fromEntries(Object.entries(SERIES).map(([key, name]) => [key, value(name)])) as Reading;
    if (Number.isFinite(sample.rss))
      return { ...sample, threadHeaps: Number.isFinite(sample.threadHeaps) ? sample.threadHeaps : 0 };
  }
  return undefined;
}
