// Upserts the FlowOutcome search attribute once the caller's sync window
// closes (responded, sync timeout, flow ended, failed), so operators can ask
// for "all executions of v3 that timed out". Instant-return executions get
// theirs at start. Only for executions started with search attributes: an
// upsert of an attribute the namespace lacks would fail the workflow task.
import { condition, patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { COMPANY_KEY, FLOW_OUTCOME_KEY } from '../../flow/search-attribute-keys.ts';
import type { SyncWindow } from './sync-window.ts';

/**
 * What the Temporal UI shows for the timers bounding the caller's wait (the update handler's and
 * this module's): without it they are unnamed "1 (30s)" rows an operator cannot place.
 */
export const SYNC_WINDOW_TIMER_SUMMARY = "Caller's sync window (the flow goes on after it closes)";

export async function recordOutcomeWhenDecided(window: SyncWindow): Promise<void> {
  if (!window.isSync || workflowInfo().typedSearchAttributes.get(COMPANY_KEY) === undefined) return;
  // Executions started by an earlier release replay without these commands.
  if (!patched('flowhook-outcome-attribute')) return;
  // The deadline bounds the wait: a window nobody closed explicitly has timed out by then.
  await condition(() => !window.isOpen, Math.max(1, window.deadline - Date.now()), {
    summary: SYNC_WINDOW_TIMER_SUMMARY,
  });
  upsertSearchAttributes([{ key: FLOW_OUTCOME_KEY, value: window.outcomeLabel ?? 'sync timeout' }]);
}
