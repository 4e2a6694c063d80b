// Runs one recurring task at start and then every interval, never two at once: the engine
// heartbeat (limits/engine-membership.ts) and other per-engine rounds. (Retention is not one: a
// Temporal Schedule purges once per deployment, engine/domain/retention/.) A task handles its own
// errors; close() waits for a round under way so the database is not closed under it.

export interface PeriodicTask {
  /** Settles when the first round (started at once) has ended. */
  firstRound: Promise<void>;
  /** Stops the timer and waits for a round under way. */
  close(): Promise<void>;
}

export function startPeriodicTask(round: () => Promise<unknown>, intervalMs: number): PeriodicTask {
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  function schedule(): void {
    if (closed) return;
    timer = setTimeout(() => {
      running = round().finally(schedule);
    }, intervalMs);
    // Housekeeping never keeps a process alive.
    timer.unref();
  }

  running = round().finally(schedule);
  const firstRound = running.then(
    () => undefined,
    () => undefined,
  );
  return {
    firstRound,
    async close() {
      closed = true;
      clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
