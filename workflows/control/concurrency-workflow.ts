// The coordinator of one concurrency key (the Temporal mutex pattern, counted):
// at most `limit` executions hold a slot; the others wait in arrival order.
// An execution asks with admissionRequest (signal-with-start, so the first
// request starts this workflow), runs once it got admissionGrant, and gives
// its slot back with admissionRelease when it ends, however it ends. A holder
// that can no longer release — terminated by an operator — is found by asking
// Temporal about the holders while others wait, so no key stays locked.
import { condition, continueAsNew, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { FlowActivities } from '../activities/index.ts';
import type { GateState } from '../shared/flow-control-contract.ts';
import { admissionReleaseSignal, admissionRequestSignal, gateStateQuery } from '../shared/flow-control-messages.ts';
import { historyIsLong, lingeredIdle, sendGrant } from './coordinator-lifecycle.ts';
import { ArrivalQueue } from './arrival-queue.ts';

/** While executions wait and every slot is held, how often the holders are checked. */
export const HOLDER_CHECK_MS = 60_000;

const { closedExecutions } = proxyLocalActivities<FlowActivities>({ startToCloseTimeout: '30s', retry: { maximumInterval: '30s' } });

export async function flowConcurrencyWorkflow(state: GateState): Promise<void> {
  const coordinatorId = workflowInfo().workflowId;
  const queue = new ArrivalQueue(state.queue);
  const holders = new Map(Object.entries(state.holders ?? {}));
  let limit = state.limit ?? 1;
  /** Holders that asked again (a retried request): their grant is sent again. */
  const regrant = new Set<string>();
  /** Waiting executions that found every slot taken (or others waiting) when they asked: counted as queued. */
  const queuedIds = new Set<string>();

  setHandler(admissionRequestSignal, ({ executionId, arrivedAt, gate }) => {
    // The latest published version's limit counts.
    if (gate.kind === 'concurrency') limit = gate.limit;
    if (holders.has(executionId)) regrant.add(executionId);
    else if (!queue.has(executionId)) {
      if (holders.size >= limit || queue.length > 0) queuedIds.add(executionId);
      queue.add({ executionId, arrivedAt });
    }
  });
  setHandler(admissionReleaseSignal, ({ executionId }) => {
    holders.delete(executionId);
    queue.remove(executionId);
    queuedIds.delete(executionId);
  });
  const snapshot = (): GateState => ({ queue: queue.toJSON(), holders: Object.fromEntries(holders), limit });
  setHandler(gateStateQuery, snapshot);

  const canGrant = () => holders.size < limit && queue.length > 0;
  for (;;) {
    const grants: Promise<void>[] = [];
    for (const executionId of regrant) grants.push(grantTo(executionId, false));
    regrant.clear();
    while (canGrant()) {
      const { executionId } = queue.shift()!;
      holders.set(executionId, Date.now());
      grants.push(grantTo(executionId, queuedIds.delete(executionId)));
    }
    await Promise.all(grants);
    if (queue.length === 0 && holders.size === 0) {
      if (await lingeredIdle(() => queue.length > 0 || holders.size > 0)) return;
      continue;
    }
    if (historyIsLong()) await continueAsNew<typeof flowConcurrencyWorkflow>(snapshot());
    // Holders are checked when the first execution starts to wait behind them (a holder terminated
    // before then frees its slot at once) and then every HOLDER_CHECK_MS while executions wait.
    // (condition() resolves to undefined without a timeout, to false when its timeout ran out.)
    const checkHolders = queue.length > 0;
    const moved = await condition(
      () => canGrant() || regrant.size > 0 || (queue.length === 0 && holders.size === 0) || (!checkHolders && queue.length > 0),
      checkHolders ? HOLDER_CHECK_MS : undefined,
    );
    const firstToWait = !checkHolders && queue.length > 0 && !canGrant();
    if (moved === false || firstToWait) {
      for (const executionId of await closedExecutions([...holders.keys()])) holders.delete(executionId);
    }
  }

  async function grantTo(executionId: string, queued: boolean): Promise<void> {
    // An execution that is gone (terminated before its turn) frees its slot at once.
    if (!(await sendGrant(executionId, coordinatorId, queued))) holders.delete(executionId);
  }
}
