// Turns a bench run into the JSON file and the Markdown table, with the
// ratios against the floors and the issue's targets checked.
import type { BenchTlsMode } from './bench-tls.ts';
import type { LoadResult } from './load-loop.ts';
import type { MemoryAtPeak } from './memory-sampler.ts';
import type { BurstResult } from './burst.ts';

export interface ScenarioRun {
  scenario: 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I';
  label: string;
  result: LoadResult;
  /** CPU seconds per flowhook process during the measured window. */
  cpu: Record<string, number>;
}

export interface BenchReport {
  date: string;
  cores: number;
  node: string;
  seconds: number;
  /** The facade → engine hop: h2c, TLS or mutual TLS (BENCH_ENGINE_TLS); absent in runs from before the option. */
  engineTls?: BenchTlsMode;
  /** Which Temporal was measured; absent in runs from before the option (the dev server). */
  temporal?: string;
  /** Engine, worker and facade in one `flowhook start` process; absent in runs from before the option. */
  allInOne?: boolean;
  runs: ScenarioRun[];
  peakRssMiB: Record<string, number>;
  /** Per process, the largest sampled RSS split by where it goes; absent in runs from before the sampler. */
  memoryAtPeak?: Record<string, MemoryAtPeak>;
  executions: { expected: number; found: number; missing: number };
  /** Scenario J, the burst on one concurrency key; absent in runs without it. */
  burst?: BurstResult;
}

const ENGINE_HOP = { off: 'h2c', tls: 'TLS', mutual: 'mutual TLS' } as const;

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : Number.NaN);

export function markdown(report: BenchReport): string {
  const processes = Object.keys(report.peakRssMiB);
  const lines = [
    `Run ${report.date} · ${report.cores} cores · Node ${report.node} · ${report.seconds} s measured per cell after a warm-up · engine hop ${ENGINE_HOP[report.engineTls ?? 'off']} · Temporal ${report.temporal ?? 'dev server'}${report.allInOne ? ' · all in one `flowhook start` process' : ''}`,
    '',
    `| scenario | conc. | calls | errors | req/s | p50 ms | p99 ms | CPU s ${processes.join(' / ')} |`,
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const run of report.runs) {
    const r = run.result;
    const cpu = processes.map((name) => (run.cpu[name] ?? 0).toFixed(1)).join(' / ');
    lines.push(
      `| ${run.scenario}: ${run.label} | ${r.concurrency} | ${r.calls} | ${r.errors} | ${r.throughput} | ${r.p50} | ${r.p99} | ${cpu} |`,
    );
  }
  lines.push('', '| ratio | conc. | throughput | p50 | p99 | target |', '|---|---:|---:|---:|---:|---|');
  for (const concurrency of [...new Set(report.runs.map((r) => r.result.concurrency))]) {
    const get = (s: ScenarioRun['scenario']) =>
      report.runs.find((r) => r.scenario === s && r.result.concurrency === concurrency)?.result;
    const [a, b, c, d, f] = [get('A'), get('B'), get('C'), get('D'), get('F')];
    // Flow control's price on the call path next to A (the executions themselves then wait in Temporal).
    for (const [scenario, name] of [
      ['G', 'G/A one concurrency key'],
      ['H', 'H/A 50 concurrency keys'],
      ['I', 'I/A debounce, 50 keys'],
    ] as const) {
      const controlled = get(scenario);
      if (controlled && a)
        lines.push(
          `| ${name} | ${concurrency} | ${ratio(controlled.throughput, a.throughput)} | ${ratio(controlled.p50, a.p50)} | ${ratio(controlled.p99, a.p99)} | — |`,
        );
    }
    if (a && c) {
      const target = `thr ≥ 0.8×C${concurrency === 50 ? (a.throughput >= 0.8 * c.throughput ? ' ✓' : ' ✗') : ''}; p50 ≤ 1.25×C+2ms ${a.p50 <= 1.25 * c.p50 + 2 ? '✓' : '✗'}`;
      lines.push(
        `| A/C instant | ${concurrency} | ${ratio(a.throughput, c.throughput)} | ${ratio(a.p50, c.p50)} | ${ratio(a.p99, c.p99)} | ${target} |`,
      );
    }
    // The provider route's price for verification (and its plainer answer) next to the OData route, both Instant.
    if (f && a)
      lines.push(
        `| F/A provider route | ${concurrency} | ${ratio(f.throughput, a.throughput)} | ${ratio(f.p50, a.p50)} | ${ratio(f.p99, a.p99)} | — |`,
      );
    if (b && d) {
      const target = `p50 ≤ 1.25×D+2ms ${b.p50 <= 1.25 * d.p50 + 2 ? '✓' : '✗'}; p99 ≤ 1.5×D ${b.p99 <= 1.5 * d.p99 ? '✓' : '✗'}`;
      lines.push(
        `| B/D sync | ${concurrency} | ${ratio(b.throughput, d.throughput)} | ${ratio(b.p50, d.p50)} | ${ratio(b.p99, d.p99)} | ${target} |`,
      );
    }
  }
  const total = Object.values(report.peakRssMiB).reduce((sum, mib) => sum + mib, 0);
  lines.push(
    '',
    `Peak RSS (MiB): ${Object.entries(report.peakRssMiB)
      .map(([name, mib]) => `${name} ${mib}`)
      .join(
        ', ',
      )}${processes.length > 1 ? `; together ${total} (each process's own peak; budget 650 ${total <= 650 ? '✓' : '✗'})` : ''}.`,
    ...memoryTable(report.memoryAtPeak),
    ...burstLines(report.burst, processes),
    `Executions: ${report.executions.expected} answered as started, ${report.executions.found} found in Temporal, ${report.executions.missing} missing.`,
  );
  return lines.join('\n');
}

/** Where the memory goes at each process's largest sampled RSS (memory-sampler.ts). */
function memoryTable(memory: BenchReport['memoryAtPeak']): string[] {
  if (!memory || Object.keys(memory).length === 0) return [];
  return [
    '',
    '| process (MiB, at its largest sample) | RSS | V8 heap, main thread | V8 heaps, worker threads | external (buffers) | native and code (the rest) | during |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...Object.entries(memory).map(
      ([name, m]) =>
        `| ${name} | ${m.rssMiB} | ${m.mainHeapMiB} | ${m.threadHeapsMiB} | ${m.externalMiB} | ${m.nativeMiB} | ${m.during ?? '—'} |`,
    ),
    '',
  ];
}

/** Scenario J (burst.ts): the one-key burst's acceptance, drain and the other keys' wait. */
function burstLines(burst: BurstResult | undefined, processes: string[]): string[] {
  if (!burst) return [];
  const cpu = processes.map((name) => (burst.cpu[name] ?? 0).toFixed(1)).join(' / ');
  const target = (met: boolean) => (met ? '✓' : '✗');
  return [
    `**J: burst** — ${burst.calls} calls for one concurrency key (limit 1) at concurrency 50: ${burst.accepted} accepted (${burst.acceptedPerSecond}/s), ${burst.refused} refused${burst.firstError ? ` (${burst.firstError})` : ''}.`,
    '',
    '| drain (executions/s) | other key waited p50 / max (ms) | samples | burst to last execution (s) | CPU s ' +
      processes.join(' / ') +
      ' |',
    '|---:|---:|---:|---:|---|',
    `| ${burst.drainPerSecond} ${target(burst.drainPerSecond >= 20)} (≥ 20) | ${burst.otherKeyWaitMs.p50} / ${burst.otherKeyWaitMs.max} ${target(burst.otherKeyWaitMs.max <= 5000)} (≤ 5 s) | ${burst.otherKeyWaitMs.samples} | ${burst.totalSeconds} | ${cpu} |`,
    '',
  ];
}
