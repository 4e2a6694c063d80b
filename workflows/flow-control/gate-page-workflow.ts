// A page of a gate's waiting executions (gate-queue.ts): it keeps its entries
// in its input — Temporal's storage, not a worker's memory — and does nothing
// until its gate asks for them back, then hands them over and ends. A page
// waits without timers, so a worker holds it only for its two short tasks.
// The gate may write the same page again with more entries (its workflow task
// failed after the page was started, and the retry found a longer tail): those
// arrive as a signal and are kept too, each execution once, in arrival order.
import { condition, getExternalWorkflowHandle, log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { GatePageInput, QueuedExecution } from '../../flow/flow-control-contract.ts';
import {
  gatePageAddEntriesSignal,
  gatePageCountQuery,
  gatePageEntriesSignal,
  gatePageTakeSignal,
} from '../../flow/flow-control-messages.ts';

export async function flowGatePageWorkflow(input: GatePageInput): Promise<void> {
  let asked = false;
  const entries: QueuedExecution[] = [...input.entries];
  const kept = new Set(entries.map((entry) => entry.executionId));
  setHandler(gatePageTakeSignal, () => void (asked = true));
  setHandler(gatePageAddEntriesSignal, (more) => {
    for (const entry of more.entries) {
      if (kept.has(entry.executionId)) continue;
      kept.add(entry.executionId);
      entries.push(entry);
    }
    // The gate's queue places by arrival; a page hands them back the same way.
    entries.sort((a, b) => a.arrivedAt - b.arrivedAt);
  });
  setHandler(gatePageCountQuery, () => entries.length);
  await condition(() => asked);
  try {
    await getExternalWorkflowHandle(input.coordinatorId).signal(gatePageEntriesSignal, {
      pageId: workflowInfo().workflowId,
      entries,
    });
  } catch (error) {
    // The gate is gone (an operator ended it): each of these executions asks its gate again by its own deadline.
    log.warn('a page of waiting executions found its gate gone', {
      gate: input.coordinatorId,
      entries: entries.length,
      reason: String(error),
    });
  }
}
