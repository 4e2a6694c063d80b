// The collector of one debounce or batch key. The engine hands it each call
// with update-with-start (collectCall) and answers the caller once Temporal
// accepted the update: from then on the call is in this workflow's history.
// When a window is due the collector starts its execution — a child workflow
// that outlives the collector (parent close policy ABANDON) — with the seed of
// the window's first call, so the execution id the callers were given is the
// one that runs. Keyed calls are remembered for a day, across continue-as-new,
// so a retried call joins its execution instead of a second one.
// doNotLogPayload: what the collector hands on that holds payload data (its
// executions' input, its continue-as-new state) is marked for the codec; the
// rest — memo, update answers — holds none, so each execution's memo stays as
// readable as any other execution's.
import { condition, continueAsNew, log, setHandler, startChild } from '@temporalio/workflow';
import { FLOW_WORKFLOW_TYPE, type FlowWorkflow } from '../shared/flow-contract.ts';
import { COLLECTED_LIMITS, type CollectorCarry, type CollectorInput, type CollectorWindow } from '../shared/flow-control-contract.ts';
import { markSensitive } from '../shared/payload-converter.ts';
import { collectCallUpdate } from '../shared/flow-control-messages.ts';
import { historyIsLong, lingeredIdle } from './coordinator-lifecycle.ts';
import { CollectorWindows, windowInput } from './collector-windows.ts';

export async function flowCollectorWorkflow(input: CollectorInput): Promise<void> {
  const windows = new CollectorWindows(input.policy, input.carried?.windows ?? []);
  const remembered = new Map<string, { executionId: string; at: number; digest?: string }>(
    (input.carried?.remembered ?? []).map(([callId, executionId, at, digest]) => [callId, { executionId, at, ...(digest !== undefined && { digest }) }]),
  );
  /** Bumped by every call: the loop recomputes when the next window is due. */
  let calls = 0;

  setHandler(collectCallUpdate, (call) => {
    const known = remembered.get(call.callId);
    if (known) return { executionId: known.executionId, repeated: true, ...(known.digest !== call.payloadDigest && { reused: true }) };
    const executionId = windows.add(call, Date.now());
    calls += 1;
    if (call.keyed) {
      remembered.set(call.callId, { executionId, at: Date.now(), ...(call.payloadDigest !== undefined && { digest: call.payloadDigest }) });
      // The oldest go first when there are too many (Map keeps insertion order).
      while (remembered.size > COLLECTED_LIMITS.remembered) remembered.delete(remembered.keys().next().value!);
    }
    return { executionId, repeated: false };
  });

  for (;;) {
    for (const window of windows.takeDue(Date.now())) await startExecution(window);
    forgetOlderThan(Date.now() - COLLECTED_LIMITS.rememberMs);
    if (historyIsLong()) {
      const carried = {
        windows: [...windows.windows],
        remembered: [...remembered].map(([callId, { executionId, at, digest }]) => [callId, executionId, at, digest] as CollectorCarry['remembered'][number]),
      };
      await continueAsNew<typeof flowCollectorWorkflow>(sensitive({ ...input, carried }));
    }
    const seen = calls;
    const nextDue = windows.nextDue();
    if (nextDue !== undefined) {
      await condition(() => calls !== seen, Math.max(1, nextDue - Date.now()));
      continue;
    }
    if (remembered.size === 0) {
      if (await lingeredIdle(() => !windows.isEmpty)) return;
      continue;
    }
    // Idle, but a keyed call may come again: wait until the oldest is forgotten.
    const oldest = remembered.values().next().value!.at;
    await condition(() => calls !== seen, Math.max(1, oldest + COLLECTED_LIMITS.rememberMs - Date.now()));
  }

  function sensitive<T>(value: T): T {
    return input.template.trigger.doNotLogPayload ? markSensitive(value) : value;
  }

  async function startExecution(window: CollectorWindow): Promise<void> {
    const { seed } = window;
    try {
      await startChild<FlowWorkflow>(FLOW_WORKFLOW_TYPE, {
        workflowId: seed.workflowId,
        args: [sensitive(windowInput(input.template, input.policy, window))],
        // The execution lives on when this collector ends; cancelling the collector does not cancel it.
        parentClosePolicy: 'ABANDON',
        cancellationType: 'ABANDON',
        memo: seed.memo,
        typedSearchAttributes: seed.searchAttributes,
        staticSummary: seed.staticSummary,
        staticDetails: seed.staticDetails,
        priority: seed.priority,
      });
    } catch (error) {
      // Only a taken id can refuse a start, and seeds are fresh ids: nothing to run twice.
      log.warn('a collected window could not start its execution', {
        executionId: seed.workflowId,
        calls: window.count,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }

  function forgetOlderThan(limit: number): void {
    for (const [callId, { at }] of remembered) {
      if (at >= limit) break;
      remembered.delete(callId);
    }
  }
}
