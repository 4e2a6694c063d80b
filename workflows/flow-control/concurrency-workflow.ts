// The coordinator of one concurrency key (the Temporal mutex pattern, counted):
// at most `limit` executions hold a slot; the others wait in arrival order
// (gate-queue.ts: a hundred thousand may wait, most of them in pages). An
// execution comes with admissionRequest (signal-with-start, so the first one
// starts this workflow), holds a slot once it got admissionGrant — a
// signal-with-start too, which wakes an execution the engine started with a
// delay — and gives its slot back with admissionRelease when it ends, however
// it ends. A holder that can no longer release — terminated by an operator —
// is found by asking Temporal about the holders while others wait, so no key
// stays locked.
import { condition, continueAsNew, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { FlowActivities } from '../activities/index.ts';
import { GATE_LIMITS, type GateCarry, type QueuedExecution } from '../../flow/flow-control-contract.ts';
import {
  admissionReleaseSignal,
  admissionRequestSignal,
  gateBacklogQuery,
  gatePageEntriesSignal,
  gateStateQuery,
} from '../../flow/flow-control-messages.ts';
import { historyIsLong, letPass, lingeredIdle, showGate, waiting } from './coordinator-lifecycle.ts';
import { GatePaging } from './gate-paging.ts';
import { GateQueue } from './gate-queue.ts';

/**
 * While executions wait and every slot is held, how often the holders are checked: 100 ms a holder,
 * between 10 s and a minute (a terminated holder is found soon; a thousand holders cost Temporal
 * about ten descriptions a second at most).
 */
export function holderCheckMs(holders: number): number {
  return Math.min(60_000, Math.max(10_000, holders * 100));
}

const { closedExecutions } = proxyLocalActivities<FlowActivities>({
  startToCloseTimeout: '60s',
  retry: { maximumInterval: '30s' },
});

export async function flowConcurrencyWorkflow(carry: GateCarry): Promise<void> {
  const info = workflowInfo();
  const queue = new GateQueue(info.workflowId, carry.queue);
  const paging = new GatePaging(queue, info.workflowId);
  const holders = new Map(Object.entries(carry.holders ?? {}));
  let limit = carry.limit ?? 1;
  let summary = carry.summary;
  /** Holders that asked again (a retried request, or one woken by its deadline): their grant is sent again. */
  const regrant = new Set<string>();

  setHandler(admissionRequestSignal, (request) => {
    // The latest published version's limit counts.
    if (request.gate.kind === 'concurrency') limit = request.gate.limit;
    summary = request.gate.summary;
    if (holders.has(request.executionId)) regrant.add(request.executionId);
    else queue.add(waiting(request, 'concurrency', holders.size >= limit || queue.waiting > 0));
  });
  setHandler(admissionReleaseSignal, ({ executionId }) => {
    if (!holders.delete(executionId)) queue.remove(executionId);
    regrant.delete(executionId);
  });
  setHandler(gatePageEntriesSignal, ({ pageId, entries }) => void queue.refill(pageId, entries));
  const snapshot = (): GateCarry => ({
    queue: queue.toJSON(),
    holders: Object.fromEntries(holders),
    limit,
    ...(summary !== undefined && { summary }),
  });
  setHandler(gateStateQuery, () => ({
    waiting: queue.waiting,
    first: queue.first(100),
    pages: queue.pages.length,
    holders: Object.fromEntries(holders),
    limit,
  }));
  setHandler(gateBacklogQuery, () => ({ waiting: queue.waiting }));

  const canGrant = () => holders.size < limit && queue.ready;
  const idle = () => queue.waiting === 0 && holders.size === 0;
  let checkedHolders = false;
  for (;;) {
    const grants: QueuedExecution[] = [...regrant].map((executionId) => ({ executionId, arrivedAt: 0 }));
    regrant.clear();
    while (canGrant() && grants.length < GATE_LIMITS.grantChunk) {
      const next = queue.shift()!;
      holders.set(next.executionId, Date.now());
      grants.push(next);
    }
    if (grants.length > 0) {
      // An execution that is gone (terminated before its turn) frees its slot at once.
      for (const executionId of await letPass('concurrency', grants)) holders.delete(executionId);
      continue;
    }
    if (paging.due) {
      await paging.run();
      continue;
    }
    if (idle()) {
      if (await lingeredIdle(() => !idle())) return;
      continue;
    }
    if (historyIsLong()) await continueAsNew<typeof flowConcurrencyWorkflow>(snapshot());
    showGate(summary, queue.waiting, queue.pages.length, `, ${holders.size} of ${limit} running`);
    // Holders are checked when the first execution starts to wait behind them (a holder terminated
    // before then frees its slot at once) and then every holderCheckMs while executions wait.
    const waitingBehind = queue.waiting > 0 && holders.size >= limit;
    if (waitingBehind && !checkedHolders) {
      checkedHolders = true;
      await dropClosedHolders();
      continue;
    }
    if (!waitingBehind) checkedHolders = false;
    const wake = paging.recheckInMs;
    const check = holderCheckMs(holders.size);
    const timeout = waitingBehind ? Math.min(check, wake ?? check) : wake;
    // (condition() resolves to undefined without a timeout, to false when its timeout ran out.)
    const moved = await condition(
      () =>
        canGrant() ||
        regrant.size > 0 ||
        paging.due ||
        idle() ||
        (holders.size >= limit && queue.waiting > 0 && !checkedHolders) ||
        historyIsLong(),
      timeout,
    );
    if (moved === false && waitingBehind && holders.size >= limit) await dropClosedHolders();
  }

  async function dropClosedHolders(): Promise<void> {
    for (const executionId of await closedExecutions([...holders.keys()])) holders.delete(executionId);
  }
}
