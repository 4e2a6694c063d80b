// The pause gate of one flow. `flowhook flow pause` starts it paused
// (signal-with-start of flowPaused); executions of calls the engine accepted
// while it knew the flow paused are handed to it and wait (in pages when many
// wait, gate-queue.ts); `flow resume` opens it, it lets every waiting
// execution pass in arrival order — a chunk per workflow task, each woken or
// handed to its next gate — and ends. So the gate runs exactly while the flow
// is paused or still releasing: an execution whose request starts it (the
// flow was resumed meanwhile, and the gate has ended) finds it open and passes
// at once.
import { condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { GATE_LIMITS, type GateCarry, type QueuedExecution } from '../../flow/flow-control-contract.ts';
import {
  admissionReleaseSignal,
  admissionRequestSignal,
  flowPausedSignal,
  gateBacklogQuery,
  gatePageEntriesSignal,
  gateStateQuery,
} from '../../flow/flow-control-messages.ts';
import { historyIsLong, letPass, lingeredIdle, showGate, waiting } from './coordinator-lifecycle.ts';
import { GatePaging } from './gate-paging.ts';
import { GateQueue } from './gate-queue.ts';

export async function flowPauseGateWorkflow(carry: GateCarry): Promise<void> {
  const info = workflowInfo();
  const queue = new GateQueue(info.workflowId, carry.queue);
  const paging = new GatePaging(queue, info.workflowId);
  let paused = carry.paused ?? false;
  let summary = carry.summary;

  setHandler(admissionRequestSignal, (request) => {
    summary = request.gate.summary;
    queue.add(waiting(request, 'pause', true));
  });
  setHandler(admissionReleaseSignal, ({ executionId }) => void queue.remove(executionId));
  setHandler(flowPausedSignal, (signal) => {
    paused = signal.paused;
  });
  setHandler(gatePageEntriesSignal, ({ pageId, entries }) => void queue.refill(pageId, entries));
  const snapshot = (): GateCarry => ({ queue: queue.toJSON(), paused, ...(summary !== undefined && { summary }) });
  setHandler(gateStateQuery, () => ({
    waiting: queue.waiting,
    first: queue.first(100),
    pages: queue.pages.length,
    paused,
  }));
  setHandler(gateBacklogQuery, () => ({ waiting: queue.waiting }));

  for (;;) {
    if (!paused && queue.ready) {
      const grants: QueuedExecution[] = [];
      while (queue.ready && grants.length < GATE_LIMITS.grantChunk) grants.push(queue.shift()!);
      await letPass('pause', grants);
      continue;
    }
    if (paging.due) {
      await paging.run();
      continue;
    }
    if (!paused && queue.waiting === 0) {
      if (await lingeredIdle(() => queue.waiting > 0 || paused)) return;
      continue;
    }
    if (historyIsLong()) await continueAsNew<typeof flowPauseGateWorkflow>(snapshot());
    showGate(summary, queue.waiting, queue.pages.length, paused ? ' — the flow is paused' : '');
    await condition(
      () => (!paused && (queue.ready || queue.waiting === 0)) || paging.due || historyIsLong(),
      paging.recheckInMs,
    );
  }
}
