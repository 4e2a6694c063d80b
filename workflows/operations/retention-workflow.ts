// One retention purge, started by the Temporal Schedule `flowhook-retention` every
// FLOWHOOK_RETENTION_INTERVAL (engine/domain/retention/retention-schedule.ts): rounds of the
// engine's purge, each bounded, until no kind has more past its retention. The result — when it
// ended and what it deleted per kind — is what `flowhook retention show` reads back as the last
// purge. A long backlog continues as new every ROUNDS_PER_RUN rounds, carrying its totals.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { RetentionRunInput, RetentionRunResult, RetentionWorkflow } from '../../flow/retention-contract.ts';
import type { RetentionActivities } from './retention-activities.ts';

/** A round is a few history events: 200 keep a run's history far below Temporal's limits. */
const ROUNDS_PER_RUN = 200;

const { purgeExpired } = proxyActivities<RetentionActivities>({
  // A round is at most 20 batches of 5,000 rows per kind and 500 executions described.
  startToCloseTimeout: '10 minutes',
  // An engine or database outage is waited out; the schedule skips its runs meanwhile (overlap SKIP).
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

export async function flowhookRetentionWorkflow(input: RetentionRunInput = {}): Promise<RetentionRunResult> {
  const startedAt = input.startedAt ?? new Date().toISOString();
  const purged: Record<string, number> = { ...input.purged };
  let rounds = input.rounds ?? 0;
  let callbackCursor = input.callbackCursor ?? '';
  for (let inThisRun = 1; ; inThisRun++) {
    const round = await purgeExpired({ callbackCursor });
    rounds++;
    for (const [kind, rows] of Object.entries(round.purged)) purged[kind] = (purged[kind] ?? 0) + rows;
    callbackCursor = round.nextCallbackCursor;
    if (!round.more) break;
    if (inThisRun >= ROUNDS_PER_RUN)
      return continueAsNew<RetentionWorkflow>({ callbackCursor, purged, rounds, startedAt });
  }
  return { startedAt, finishedAt: new Date().toISOString(), rounds, purged };
}
