// The last purge the retention schedule finished, read back from Temporal: the schedule lists its
// recent runs, and a finished run's result says when it ended and what it deleted per kind. So
// `retention show` answers the same on every engine without a table of its own.
import type { Client } from '@temporalio/client';
import type { RetentionRunResult } from '../../../flow/retention-contract.ts';
import { retentionScheduleId } from './retention-schedule.ts';

export interface RetentionScheduleState {
  scheduleId: string;
  intervalMs?: number;
  paused: boolean;
  nextRun?: Date;
  last?: RetentionRunResult;
  /** Why the schedule could not be described. */
  problem?: string;
}

export async function retentionScheduleState(client: Client, taskQueue: string): Promise<RetentionScheduleState> {
  const scheduleId = retentionScheduleId(taskQueue);
  let described;
  try {
    described = await client.schedule.getHandle(scheduleId).describe();
  } catch (error) {
    return { scheduleId, paused: false, problem: error instanceof Error ? error.message : String(error) };
  }
  const state: RetentionScheduleState = {
    scheduleId,
    intervalMs: described.spec.intervals?.[0]?.every,
    paused: described.state.paused,
    nextRun: described.info.nextActionTimes[0],
  };
  // Newest first: the first that completed is the last purge (a run still going, or one that failed, is passed over).
  for (const action of [...described.info.recentActions].reverse()) {
    const handle = client.workflow.getHandle(action.action.workflow.workflowId);
    const run = await handle.describe().catch(() => undefined);
    if (run?.status.name !== 'COMPLETED') continue;
    // A result this engine cannot read (deleted by Temporal's retention meanwhile) leaves the last purge unknown.
    state.last = (await handle.result().catch(() => undefined)) as RetentionRunResult | undefined;
    break;
  }
  return state;
}
