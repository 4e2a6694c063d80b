// Whether the run a grant was minted for still runs, as the grant check asks
// on every call that carries an execution grant (security/execution-access.ts):
// Temporal's current run of the execution id is RUNNING and carries the grant's
// run mark (security/execution-grants.ts; g1 grants have none and match only a
// run without one). Temporal is the only one who knows
// (callbacks/execution-still-runs.ts); its answers are remembered briefly so
// the steps of one execution share one question:
//
// - "runs" for RUNNING_TTL_MS: a grant works at most that long after its
//   execution closed;
// - "does not run" for CLOSED_TTL_MS: a closed run does not run again, and a
//   caller repeating an old grant does not cost Temporal a question each time.
//   A later run with the same id has another mark, so another cache entry.
//
// No answer (Temporal unreachable) is never remembered: the error travels on
// (UNAVAILABLE) and the next call asks again. The cache holds at most
// MAX_ENTRIES answers, keyed by a digest of execution id and run mark
// (cache/digest-keyed-lru.ts); at the cap the least recently used answer goes.
import { DigestKeyedLru } from '../../infrastructure/cache/digest-keyed-lru.ts';
import type { ExecutionRunState } from './execution-still-runs.ts';

export const RUNNING_TTL_MS = 2_000;
export const CLOSED_TTL_MS = 60_000;
export const MAX_ENTRIES = 10_000;

export interface ExecutionLivenessOptions {
  /** Temporal's answer about the execution's current run; throws when there is no answer. */
  ask: (executionId: string) => Promise<ExecutionRunState>;
  runningTtlMs?: number;
  closedTtlMs?: number;
  maxEntries?: number;
  /** The clock, in milliseconds; tests inject their own. */
  now?: () => number;
  /** Told hit or miss on every lookup (engine/metrics: flowhook_engine_cache_lookups_total). */
  observeLookup?: (hit: boolean) => void;
}

export interface ExecutionLiveness {
  /** Whether the execution's current run is RUNNING and is the one marked `runMark` (undefined: a run without a mark). */
  stillRuns(executionId: string, runMark: string | undefined): Promise<boolean>;
}

interface Answer {
  running: boolean;
  expiresAt: number;
}

export function createExecutionLiveness(options: ExecutionLivenessOptions): ExecutionLiveness {
  const runningTtlMs = options.runningTtlMs ?? RUNNING_TTL_MS;
  const closedTtlMs = options.closedTtlMs ?? CLOSED_TTL_MS;
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const now = options.now ?? Date.now;
  const answers = new DigestKeyedLru<Answer>(maxEntries);
  return {
    async stillRuns(executionId, runMark) {
      const key = `${executionId}\n${runMark ?? ''}`;
      const askedAt = now();
      const cached = answers.get(key);
      const hit = cached !== undefined && askedAt < cached.expiresAt;
      options.observeLookup?.(hit);
      if (hit) return cached.running;
      const current = await options.ask(executionId);
      const running = current.running && current.runMark === runMark;
      // Counted from the question, so an answer is never served longer than its bound after Temporal gave it.
      answers.set(key, { running, expiresAt: askedAt + (running ? runningTtlMs : closedTtlMs) });
      return running;
    },
  };
}
