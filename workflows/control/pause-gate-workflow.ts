// The pause gate of one flow. `flowhook flow pause` starts it paused
// (signal-with-start of flowPaused); executions of calls the engine accepted
// while it knew the flow paused ask it to pass and wait; `flow resume`
// opens it, it lets every waiting execution pass in arrival order and ends.
// So the gate runs exactly while the flow is paused or still releasing: an
// execution whose request starts it (the flow was resumed meanwhile, and the
// gate has ended) finds it open and passes at once.
import { condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import type { GateState } from '../shared/flow-control-contract.ts';
import { admissionRequestSignal, flowPausedSignal, gateStateQuery } from '../shared/flow-control-messages.ts';
import { historyIsLong, lingeredIdle, sendGrant } from './coordinator-lifecycle.ts';
import { ArrivalQueue } from './arrival-queue.ts';

export async function flowPauseGateWorkflow(state: GateState): Promise<void> {
  const coordinatorId = workflowInfo().workflowId;
  const queue = new ArrivalQueue(state.queue);
  let paused = state.paused ?? false;

  setHandler(admissionRequestSignal, ({ executionId, arrivedAt }) => void queue.add({ executionId, arrivedAt }));
  setHandler(flowPausedSignal, (signal) => {
    paused = signal.paused;
  });
  const snapshot = (): GateState => ({ queue: queue.toJSON(), paused });
  setHandler(gateStateQuery, snapshot);

  for (;;) {
    if (!paused) {
      // Commands of one workflow task, issued in arrival order.
      await Promise.all(queue.drain().map(({ executionId }) => sendGrant(executionId, coordinatorId, true)));
      if (queue.length === 0 && !paused && (await lingeredIdle(() => queue.length > 0 || paused))) return;
      continue;
    }
    if (historyIsLong()) await continueAsNew<typeof flowPauseGateWorkflow>(snapshot());
    await condition(() => !paused || historyIsLong());
  }
}
