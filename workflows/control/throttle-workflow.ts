// The coordinator of one throttle key: executions start at most at
// `perSecond`, `burst` at once after a quiet spell, in arrival order. A call
// over the rate is not refused: its execution waits here for a token. Tokens
// are counted in workflow time and waited for with Temporal timers, so a
// worker that dies loses nothing: the next one replays and goes on.
import { condition, continueAsNew, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { GateState } from '../shared/flow-control-contract.ts';
import { admissionRequestSignal, gateStateQuery } from '../shared/flow-control-messages.ts';
import { historyIsLong, lingeredIdle, sendGrant } from './coordinator-lifecycle.ts';
import { msUntilToken, refill, type Bucket } from './token-bucket.ts';
import { ArrivalQueue } from './arrival-queue.ts';

export async function flowThrottleWorkflow(state: GateState): Promise<void> {
  const coordinatorId = workflowInfo().workflowId;
  const queue = new ArrivalQueue(state.queue);
  let perSecond = state.perSecond ?? 1;
  let burst = state.burst ?? 1;
  let bucket: Bucket = { tokens: state.tokens ?? burst, countedAt: state.countedAt ?? Date.now() };
  const queuedIds = new Set<string>();
  /** Granted in this run: a retried request must not take a second token. */
  const granted = new Set<string>();

  setHandler(admissionRequestSignal, ({ executionId, arrivedAt, gate }) => {
    if (gate.kind === 'throttle') [perSecond, burst] = [gate.perSecond, gate.burst];
    if (granted.has(executionId) || queue.has(executionId)) return;
    bucket = refill(bucket, Date.now(), perSecond, burst);
    if (bucket.tokens < 1 || queue.length > 0) queuedIds.add(executionId);
    queue.add({ executionId, arrivedAt });
  });
  const snapshot = (): GateState => ({ queue: queue.toJSON(), tokens: bucket.tokens, countedAt: bucket.countedAt, perSecond, burst });
  setHandler(gateStateQuery, snapshot);

  for (;;) {
    bucket = refill(bucket, Date.now(), perSecond, burst);
    const grants: Promise<boolean>[] = [];
    while (bucket.tokens >= 1 && queue.length > 0) {
      const { executionId } = queue.shift()!;
      bucket = { ...bucket, tokens: bucket.tokens - 1 };
      granted.add(executionId);
      grants.push(sendGrant(executionId, coordinatorId, queuedIds.delete(executionId)));
    }
    await Promise.all(grants);
    if (queue.length === 0) {
      // A bucket that is not yet full still limits the next calls: the run lasts until it is.
      const full = refill(bucket, Date.now(), perSecond, burst).tokens >= burst;
      if (full && (await lingeredIdle(() => queue.length > 0))) return;
      if (!full) await condition(() => queue.length > 0, Math.ceil(((burst - bucket.tokens) * 1000) / perSecond));
      continue;
    }
    if (historyIsLong()) await continueAsNew<typeof flowThrottleWorkflow>(snapshot());
    await sleep(Math.max(1, msUntilToken(refill(bucket, Date.now(), perSecond, burst), perSecond)));
  }
}
