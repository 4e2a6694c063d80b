// Scenario J, "burst": 10,000 calls (BENCH_BURST_CALLS) for one concurrency key
// at limit 1, sent at concurrency 50 as fast as flowhook answers them. It
// measures what the issue asks of flow control under a burst: how fast the
// calls are accepted, how fast the one key drains (executions completed per
// second once the burst is in), how long a call for another key waits for its
// execution meanwhile, and (with the run's peak RSS) what it costs in memory.
// Every accepted call must complete; the run waits for the last one.
import type { Client } from '@temporalio/client';
import { percentile } from './load-loop.ts';

export interface BurstResult {
  calls: number;
  accepted: number;
  refused: number;
  firstError?: string;
  /** Calls accepted per second while the burst was sent. */
  acceptedPerSecond: number;
  /** Executions of the hot key completed per second, from the end of the burst to the last one. */
  drainPerSecond: number;
  /** How long the burst took to run to its last execution (s). */
  totalSeconds: number;
  /** How long calls for other keys waited for their executions to complete, during the burst and the drain (ms). */
  otherKeyWaitMs: { p50: number; max: number; samples: number };
  /** CPU seconds per flowhook process from the first call to the last execution. */
  cpu: Record<string, number>;
}

export interface BurstOptions {
  calls: number;
  concurrency: number;
  /** One call for the given key; resolves with its execution id, throws when it was not accepted. */
  call: (key: string) => Promise<string>;
  temporal: Client;
  /** Visibility query part naming the flow's executions (its activity). */
  flowQuery: string;
  cpu: () => Record<string, number>;
  log: (message: string) => void;
  /** How long the drain may take before the run gives up (ms). */
  drainTimeoutMs: number;
}

export async function runBurst(options: BurstOptions): Promise<BurstResult> {
  const { calls, concurrency, call, temporal, log } = options;
  const cpuBefore = options.cpu();
  const started = performance.now();
  let next = 0;
  let accepted = 0;
  let refused = 0;
  let firstError: string | undefined;
  const sender = async () => {
    while (next < calls) {
      next += 1;
      try {
        await call('J-hot');
        accepted += 1;
      } catch (error) {
        refused += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  const waits: number[] = [];
  let sending = true;
  const otherKeys = (async () => {
    // Another key's call every two seconds while the burst is sent and drains: how long until its execution completed.
    for (let n = 0; sending || waits.length < 3; n++) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const sent = performance.now();
      try {
        const executionId = await call(`J-other-${n}`);
        await temporal.workflow.getHandle(executionId).result();
        waits.push(performance.now() - sent);
      } catch (error) {
        log(`J: another key's call failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  })();
  await Promise.all(Array.from({ length: concurrency }, sender));
  const sentSeconds = (performance.now() - started) / 1000;
  log(
    `J: ${accepted} of ${calls} calls accepted in ${sentSeconds.toFixed(1)} s (${refused} refused${firstError ? `: ${firstError}` : ''})`,
  );
  const hot = `${options.flowQuery} AND FlowKey = "J-hot"`;
  const completedAtBurstEnd = await count(temporal, `${hot} AND ExecutionStatus = "Completed"`);
  const burstEnded = performance.now();
  let completed = completedAtBurstEnd;
  let lastLog = performance.now();
  for (const deadline = burstEnded + options.drainTimeoutMs; completed < accepted && performance.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    completed = await count(temporal, `${hot} AND ExecutionStatus = "Completed"`);
    if (performance.now() - lastLog > 30_000) {
      lastLog = performance.now();
      log(`J: ${completed} of ${accepted} executions completed`);
    }
  }
  const drainSeconds = (performance.now() - burstEnded) / 1000;
  sending = false;
  await otherKeys;
  const cpuAfter = options.cpu();
  waits.sort((a, b) => a - b);
  if (completed < accepted)
    log(`J: only ${completed} of ${accepted} executions completed within ${options.drainTimeoutMs / 1000} s`);
  return {
    calls,
    accepted,
    refused,
    ...(firstError && { firstError }),
    acceptedPerSecond: round(accepted / sentSeconds),
    drainPerSecond: round((completed - completedAtBurstEnd) / drainSeconds),
    totalSeconds: round((performance.now() - started) / 1000),
    otherKeyWaitMs: {
      p50: round(percentile(waits, 0.5)),
      max: round(waits.at(-1) ?? Number.NaN),
      samples: waits.length,
    },
    cpu: Object.fromEntries(
      Object.keys(cpuAfter).map((name) => [name, round(cpuAfter[name]! - (cpuBefore[name] ?? 0))]),
    ),
  };
}

async function count(temporal: Client, query: string): Promise<number> {
  return (await temporal.workflow.count(query)).count;
}

const round = (value: number) => Math.round(value * 10) / 10;
