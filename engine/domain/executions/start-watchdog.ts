// A sync call waits on one long Update-With-Start request for up to the sync
// timeout. If Temporal cannot be reached, that request would only fail at the
// end of the window; the watchdog notices sooner. Each `intervalMs` until the
// start is acknowledged it asks Temporal a cheap question; when that fails too
// it gives up (`onGiveUp` abandons the request), so the caller gets a 503 in
// about two `intervalMs`, not at the sync timeout. Once the start is
// acknowledged it stops: the execution is durable and the caller waits for its answer.
import type { Client } from '@temporalio/client';

export interface StartWatchdog {
  /** Rejects when the watchdog gives up (never resolves): race the wait against it. */
  readonly abandoned: Promise<never>;
  /** True when the watchdog aborted the wait because Temporal did not answer. */
  readonly gaveUp: boolean;
  stop(): void;
}

export function watchStart(
  client: Client,
  started: Promise<unknown>,
  intervalMs: number,
  onGiveUp: () => void,
): StartWatchdog {
  let acknowledged = false;
  let stopped = false;
  let gaveUp = false;
  let timer: NodeJS.Timeout | undefined;
  let giveUp: (error: Error) => void = () => undefined;
  const abandoned = new Promise<never>((_, reject) => (giveUp = reject));
  // Nobody may be racing it any more when it rejects.
  abandoned.catch(() => undefined);
  started.then(
    () => (acknowledged = true),
    () => undefined,
  );

  const check = async () => {
    if (stopped || acknowledged) return;
    if (await reachable(client, intervalMs)) {
      // Reachable but not started yet (e.g. no worker has accepted the update): keep waiting.
      if (!stopped) timer = setTimeout(() => void check(), intervalMs);
      return;
    }
    if (stopped || acknowledged) return;
    gaveUp = true;
    onGiveUp();
    giveUp(new Error('Temporal did not answer'));
  };
  timer = setTimeout(() => void check(), intervalMs);

  return {
    abandoned,
    get gaveUp() {
      return gaveUp;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

async function reachable(client: Client, timeoutMs: number): Promise<boolean> {
  try {
    await client.connection.withDeadline(Date.now() + timeoutMs, () => client.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  }
}
