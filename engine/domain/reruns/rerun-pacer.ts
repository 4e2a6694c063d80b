// The pace of re-runs in one engine process: at most `perSecond` starts per
// second, one slot after the other, shared by every re-run request (single or
// bulk, however many run at once). Re-runs do not draw on the per-caller and
// per-activity budgets of live calls (engine/limits): a bulk re-run must never
// get a live caller refused with 429. Its own low, separate pace is what keeps
// it from crowding Temporal and the workers that live calls need.
import { defaultOf } from '../../../common/configuration/configuration-table.ts';

export interface RerunPacer {
  /** Resolves when the next start may go; rejects when `signal` aborts first. */
  turn(signal?: AbortSignal): Promise<void>;
}

export const DEFAULT_RERUNS_PER_SECOND = defaultOf('FLOWHOOK_RERUN_PER_SECOND');

export function createRerunPacer(perSecond: number, now: () => number = Date.now): RerunPacer {
  const intervalMs = 1000 / perSecond;
  let nextSlotAt = 0;
  return {
    async turn(signal) {
      signal?.throwIfAborted();
      // Slots are handed out synchronously, so concurrent callers queue in call order.
      const slot = Math.max(now(), nextSlotAt);
      nextSlotAt = slot + intervalMs;
      const waitMs = slot - now();
      if (waitMs > 0) await sleep(waitMs, signal);
    },
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
