// The one enforcer of retention: a Temporal Schedule that starts the retention workflow on the
// worker every FLOWHOOK_RETENTION_INTERVAL (workflows/operations/retention-workflow.ts), whose
// activity asks an engine to purge (HousekeepingService.PurgeExpired). Durable and once per
// interval however many engines run, where a timer in every engine would purge N times; a run
// that finds the previous one still going is skipped (overlap SKIP), and a run missed while
// Temporal was down is caught up once, not once per missed interval.
//
// No per-engine fallback: without a worker no flow runs either (the worker-pollers gauge and the
// no-worker alert say so), the pending run waits in the task queue, and once a worker polls it
// purges the backlog in bounded rounds. A second enforcer would give `retention show` two answers.
//
// Every engine ensures the schedule at start: created if missing (AlreadyExists means another
// engine was first), updated when its interval or task queue differ from this engine's settings.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { defaultOf } from '../../../common/configuration/configuration-table.ts';
import { RETENTION_WORKFLOW_TYPE, type RetentionRunInput } from '../../../flow/retention-contract.ts';

export const RETENTION_SCHEDULE_ID = 'flowhook-retention';

/**
 * One schedule per deployment, and a deployment is a namespace and a task queue: two may share a
 * namespace on distinct task queues (the tests do). The default task queue's is `flowhook-retention`.
 */
export function retentionScheduleId(taskQueue: string): string {
  return taskQueue === defaultOf('FLOWHOOK_TASK_QUEUE')
    ? RETENTION_SCHEDULE_ID
    : `${RETENTION_SCHEDULE_ID}.${taskQueue}`;
}

export type ScheduleEnsured = 'created' | 'updated' | 'unchanged';

export async function ensureRetentionSchedule(
  client: Client,
  options: { taskQueue: string; intervalMs: number },
): Promise<ScheduleEnsured> {
  const scheduleId = retentionScheduleId(options.taskQueue);
  const every = options.intervalMs;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: RETENTION_WORKFLOW_TYPE,
    taskQueue: options.taskQueue,
    args: [{}] as [RetentionRunInput],
    workflowId: scheduleId,
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: every };
  try {
    await client.schedule.create({ scheduleId, spec: { intervals: [{ every }] }, action, policies });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(scheduleId);
  const current = await handle.describe();
  const interval = current.spec.intervals?.[0]?.every;
  const same =
    current.spec.intervals?.length === 1 &&
    interval === Math.round(every / 1000) * 1000 &&
    current.action.taskQueue === options.taskQueue &&
    current.action.workflowType === RETENTION_WORKFLOW_TYPE &&
    current.policies.overlap === ScheduleOverlapPolicy.SKIP;
  if (same) return 'unchanged';
  await handle.update((previous) => ({
    ...previous,
    spec: { intervals: [{ every }] },
    action,
    policies: { ...previous.policies, ...policies },
  }));
  return 'updated';
}
