// The coordinator of one throttle key: executions start at most at
// `perSecond`, `burst` at once after a quiet spell, in arrival order. A call
// over the rate is not refused: its execution waits here for a token (in
// pages when many wait, gate-queue.ts). Tokens are counted in workflow time
// and waited for with Temporal timers, so a worker that dies loses nothing:
// the next one replays and goes on.
import { condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
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
import { msUntilToken, refill, type Bucket } from '../../common/token-bucket.ts';

export async function flowThrottleWorkflow(carry: GateCarry): Promise<void> {
  const info = workflowInfo();
  const queue = new GateQueue(info.workflowId, carry.queue);
  const paging = new GatePaging(queue, info.workflowId);
  let perSecond = carry.perSecond ?? 1;
  let burst = carry.burst ?? 1;
  let summary = carry.summary;
  let bucket: Bucket = { tokens: carry.tokens ?? burst, countedAt: carry.countedAt ?? Date.now() };
  /** Let pass lately, oldest first: a repeated request (a retry, or an execution woken by its deadline) passes again without a token. */
  const passed = new Set<string>(carry.passed ?? []);
  const again: QueuedExecution[] = [];

  setHandler(admissionRequestSignal, (request) => {
    if (request.gate.kind === 'throttle') [perSecond, burst] = [request.gate.perSecond, request.gate.burst];
    summary = request.gate.summary;
    if (passed.has(request.executionId)) {
      again.push(waiting(request, 'throttle', false));
      return;
    }
    bucket = refill(bucket, Date.now(), perSecond, burst);
    queue.add(waiting(request, 'throttle', bucket.tokens < 1 || queue.waiting > 0));
  });
  setHandler(admissionReleaseSignal, ({ executionId }) => void queue.remove(executionId));
  setHandler(gatePageEntriesSignal, ({ pageId, entries }) => void queue.refill(pageId, entries));
  const snapshot = (): GateCarry => ({
    queue: queue.toJSON(),
    tokens: bucket.tokens,
    countedAt: bucket.countedAt,
    perSecond,
    burst,
    passed: [...passed],
    ...(summary !== undefined && { summary }),
  });
  setHandler(gateStateQuery, () => ({
    waiting: queue.waiting,
    first: queue.first(100),
    pages: queue.pages.length,
    tokens: bucket.tokens,
    countedAt: bucket.countedAt,
    perSecond,
    burst,
  }));
  setHandler(gateBacklogQuery, () => ({ waiting: queue.waiting }));

  const remember = (executionId: string) => {
    passed.add(executionId);
    if (passed.size > GATE_LIMITS.remembered) passed.delete(passed.values().next().value!);
  };
  for (;;) {
    bucket = refill(bucket, Date.now(), perSecond, burst);
    const grants = again.splice(0, GATE_LIMITS.grantChunk);
    while (bucket.tokens >= 1 && queue.ready && grants.length < GATE_LIMITS.grantChunk) {
      const next = queue.shift()!;
      bucket = { ...bucket, tokens: bucket.tokens - 1 };
      remember(next.executionId);
      grants.push(next);
    }
    if (grants.length > 0) {
      await letPass('throttle', grants);
      continue;
    }
    if (paging.due) {
      await paging.run();
      continue;
    }
    if (queue.waiting === 0) {
      // A bucket that is not yet full still limits the next calls: the run lasts until it is.
      const full = refill(bucket, Date.now(), perSecond, burst).tokens >= burst;
      if (full && (await lingeredIdle(() => queue.waiting > 0 || again.length > 0))) return;
      if (!full)
        await condition(
          () => queue.waiting > 0 || again.length > 0,
          Math.ceil(((burst - bucket.tokens) * 1000) / perSecond),
        );
      continue;
    }
    if (historyIsLong()) await continueAsNew<typeof flowThrottleWorkflow>(snapshot());
    showGate(summary, queue.waiting, queue.pages.length);
    // The next token, a page that should have answered, or a repeated request, whichever comes first.
    const untilToken = queue.ready
      ? Math.max(1, msUntilToken(refill(bucket, Date.now(), perSecond, burst), perSecond))
      : undefined;
    const timeouts = [untilToken, paging.recheckInMs].filter((ms): ms is number => ms !== undefined);
    await condition(
      () => again.length > 0 || paging.due || (untilToken === undefined && queue.ready),
      timeouts.length > 0 ? Math.min(...timeouts) : undefined,
    );
  }
}
