// What every flow-control coordinator does the same way: let executions pass
// (a local activity, in chunks), end only when idle, and continue as new
// before its history grows long. Ending is race-free: a signal or update
// that arrives while the last workflow task runs makes Temporal reject the
// completion, and the workflow runs again with it (so `idle()` is asked once
// more after every handler ran).
import {
  allHandlersFinished,
  condition,
  proxyLocalActivities,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import type { FlowActivities } from '../activities/index.ts';
import type { GateKind, QueuedExecution } from '../../flow/flow-control-contract.ts';

/** Continue as new past this many history events (Temporal warns at 10,240 and stops at 51,200). */
const MAX_HISTORY_EVENTS = 4000;

/** How long an idle coordinator waits for more work before it ends: a burst of calls keeps one run. */
export const IDLE_LINGER_MS = 10_000;

const { letPass: letPassActivity } = proxyLocalActivities<FlowActivities>({
  startToCloseTimeout: '60s',
  retry: { maximumInterval: '30s' },
});

/**
 * Lets the entries pass (at most GATE_LIMITS.grantChunk at a time, which the callers keep to): each
 * is woken, or handed to its next gate. Returns the executions that no longer run.
 */
export async function letPass(gateKind: GateKind, entries: QueuedExecution[]): Promise<string[]> {
  if (entries.length === 0) return [];
  const { workflowId: coordinatorId, taskQueue } = workflowInfo();
  return letPassActivity({ coordinatorId, taskQueue, entries, gateKind });
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

/** An execution as it waits at this gate: `waitedAt` names this gate too when others were ahead of it. */
export function waiting(
  request: Pick<QueuedExecution, 'executionId' | 'arrivedAt' | 'next' | 'waitedAt'>,
  gateKind: GateKind,
  behindOthers: boolean,
): QueuedExecution {
  const waitedAt = behindOthers ? [...(request.waitedAt ?? []), gateKind] : request.waitedAt;
  return {
    executionId: request.executionId,
    arrivedAt: request.arrivedAt,
    ...(request.next && request.next.length > 0 && { next: request.next }),
    ...(waitedAt && waitedAt.length > 0 && { waitedAt }),
  };
}

/**
 * What the Temporal UI shows for a gate: what it is and how many wait (its static summary is lost
 * when it continues as new, its current details are set again by every run). Labels only, never
 * payload data.
 */
export function showGate(summary: string | undefined, waiting: number, pages: number, more = ''): void {
  const queue = `${waiting} waiting${pages > 0 ? ` (${pages} page${pages === 1 ? '' : 's'} kept in Temporal)` : ''}`;
  setCurrentDetails(`${summary ? `**${summary}**\n\n` : ''}${queue}${more}`);
}
