// A page of a gate's waiting executions (gate-queue.ts): it keeps its entries
// in its input — Temporal's storage, not a worker's memory — and does nothing
// until its gate asks for them back, then hands them over and ends. A page
// waits without timers, so a worker holds it only for its two short tasks.
import { condition, getExternalWorkflowHandle, log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { GatePageInput } from '../../flow/flow-control-contract.ts';
import { gatePageEntriesSignal, gatePageTakeSignal } from '../../flow/flow-control-messages.ts';

export async function flowGatePageWorkflow(input: GatePageInput): Promise<void> {
  let asked = false;
  setHandler(gatePageTakeSignal, () => void (asked = true));
  await condition(() => asked);
  try {
    await getExternalWorkflowHandle(input.coordinatorId).signal(gatePageEntriesSignal, {
      pageId: workflowInfo().workflowId,
      entries: input.entries,
    });
  } catch (error) {
    // The gate is gone (an operator ended it): each of these executions asks its gate again by its own deadline.
    log.warn('a page of waiting executions found its gate gone', {
      gate: input.coordinatorId,
      entries: input.entries.length,
      reason: String(error),
    });
  }
}
