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
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  patched,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import { FLOW_WORKFLOW_TYPE, type FlowWorkflow } from '../../flow/flow-contract.ts';
import {
  COLLECTED_CALL_TOO_LARGE,
  COLLECTED_LIMITS,
  DEBOUNCE_DEFAULT_MAX_WAIT_PATCH,
  type CollectorCarry,
  type CollectorInput,
  type CollectorWindow,
} from '../../flow/flow-control-contract.ts';
import { markSensitive } from '../../flow/payload-converter.ts';
import { collectCallUpdate } from '../../flow/flow-control-messages.ts';
import { historyIsLong, lingeredIdle } from './coordinator-lifecycle.ts';
import { collectedCallBytes, fitsAlone, jsonBytes } from '../../flow/window-size.ts';
import { CollectorWindows, windowInput } from './collector-windows.ts';

export async function flowCollectorWorkflow(input: CollectorInput): Promise<void> {
  const windows = new CollectorWindows(input.policy, input.template, input.carried?.windows ?? []);
  const templateBytes = jsonBytes(input.template);
  const remembered = new Map<string, { executionId: string; at: number; digest?: string }>(
    (input.carried?.remembered ?? []).map(([callId, executionId, at, digest]) => [
      callId,
      { executionId, at, ...(digest !== undefined && { digest }) },
    ]),
  );
  let rememberedBytes = [...remembered].reduce(
    (sum, [callId, known]) => sum + rememberedSize(callId, known.executionId),
    0,
  );
  /** Bumped by every call: the loop recomputes when the next window is due. */
  let calls = 0;

  setHandler(
    collectCallUpdate,
    (call) => {
      const known = remembered.get(call.callId);
      if (known)
        return {
          executionId: known.executionId,
          repeated: true,
          ...(known.digest !== call.payloadDigest && { reused: true }),
        };
      const executionId = windows.add(call, Date.now());
      calls += 1;
      if (call.keyed) {
        remembered.set(call.callId, {
          executionId,
          at: Date.now(),
          ...(call.payloadDigest !== undefined && { digest: call.payloadDigest }),
        });
        rememberedBytes += rememberedSize(call.callId, executionId);
        // The oldest go first when there are too many (Map keeps insertion order).
        while (remembered.size > COLLECTED_LIMITS.remembered || rememberedBytes > COLLECTED_LIMITS.rememberedBytes)
          forget(remembered.keys().next().value!);
      }
      return { executionId, repeated: false };
    },
    {
      // The engine refuses such a call before it comes (engine/domain/flow-control/call-collector.ts); a collector never takes one.
      validator: (call) => {
        if (!fitsAlone(templateBytes, collectedCallBytes(call))) {
          throw ApplicationFailure.create({
            type: COLLECTED_CALL_TOO_LARGE,
            message: 'the call is too large for any window of this flow',
            nonRetryable: true,
          });
        }
      },
    },
  );

  for (;;) {
    // A debounce collector started before maxWait had a default (its input has none) replays its
    // history unbounded, as it ran; from its first new workflow task on it ends windows at the default.
    if (windows.unbounded && patched(DEBOUNCE_DEFAULT_MAX_WAIT_PATCH)) windows.takeDefaultMaxWait();
    for (const window of windows.takeDue(Date.now())) await startExecution(window);
    forgetOlderThan(Date.now() - COLLECTED_LIMITS.rememberMs);
    if (historyIsLong()) {
      const carried = {
        windows: [...windows.windows],
        remembered: [...remembered].map(
          ([callId, { executionId, at, digest }]) =>
            [callId, executionId, at, digest] as CollectorCarry['remembered'][number],
        ),
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
    // Whatever happens below, the window's calls are not dropped: they run, or they are tried again.
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
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        // Its id is taken: this window's execution was started already (seeds are fresh ids), so nothing is lost or run twice.
        log.info('a collected window found its execution started already', {
          executionId: seed.workflowId,
          calls: window.count,
        });
        return;
      }
      log.warn('a collected window could not start its execution; it is tried again', {
        executionId: seed.workflowId,
        calls: window.count,
        reason: error instanceof Error ? error.message : String(error),
      });
      windows.retryLater(window, Date.now());
    }
  }

  function forgetOlderThan(limit: number): void {
    for (const [callId, { at }] of remembered) {
      if (at >= limit) break;
      forget(callId);
    }
  }

  function forget(callId: string): void {
    const known = remembered.get(callId);
    if (!known) return;
    remembered.delete(callId);
    rememberedBytes -= rememberedSize(callId, known.executionId);
  }
}

/** What a remembered call costs the carried state: its ids, time and digest as JSON. */
function rememberedSize(callId: string, executionId: string): number {
  return callId.length + executionId.length + 96;
}
