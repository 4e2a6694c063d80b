// What every flow-control coordinator does the same way: grant by signal,
// end only when idle, and continue as new before its history grows long.
// Ending is race-free: a signal or update that arrives while the last
// workflow task runs makes Temporal reject the completion, and the workflow
// runs again with it (so `idle()` is asked once more after every handler ran).
import { allHandlersFinished, condition, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { admissionGrantSignal } from '../shared/flow-control-messages.ts';

/** Continue as new past this many history events (Temporal warns at 10,240 and stops at 51,200). */
const MAX_HISTORY_EVENTS = 4000;

/** How long an idle coordinator waits for more work before it ends: a burst of calls keeps one run. */
export const IDLE_LINGER_MS = 10_000;

/** Signals the grant; false when the execution no longer runs (terminated, or its id never started). */
export async function sendGrant(executionId: string, coordinatorId: string, queued: boolean): Promise<boolean> {
  try {
    await getExternalWorkflowHandle(executionId).signal(admissionGrantSignal, { coordinatorId, queued });
    return true;
  } catch {
    return false;
  }
}

/** Whether the run should hand its state to a new run now. */
export function historyIsLong(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > MAX_HISTORY_EVENTS;
}

/**
 * Waits up to IDLE_LINGER_MS for `busy()`; true when the coordinator may end: still idle, and
 * every handler finished (Temporal refuses the completion if anything arrived meanwhile).
 */
export async function lingeredIdle(busy: () => boolean): Promise<boolean> {
  if (await condition(busy, IDLE_LINGER_MS)) return false;
  await condition(allHandlersFinished);
  return !busy();
}
