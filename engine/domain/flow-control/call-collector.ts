// Hands a debounce or batch call to its collector with update-with-start
// (workflows/flow-control/collector-workflow.ts): the call is durable once
// Temporal accepted the update, and only then is the caller answered (with the
// trigger's default answer and the id of the execution the call joined). The
// update id is the call's: a keyed call retried while the collector runs is
// handed the first answer by Temporal itself.
import { WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  COLLECTED_CALL_TOO_LARGE,
  COLLECTED_LIMITS,
  COLLECTOR_WORKFLOW_TYPE,
  COORDINATOR_PRIORITY,
  type CollectedCall,
  type CollectorInput,
  type CollectorWorkflow,
  type ExecutionTemplate,
} from '../../../flow/flow-control-contract.ts';
import { collectedCallBytes, fitsAlone, jsonBytes } from '../../../flow/window-size.ts';
import { collectCallUpdate } from '../../../flow/flow-control-messages.ts';
import { markSensitive } from '../../../flow/payload-converter.ts';
import { FailedPreconditionError, IdempotencyKeyReusedError, CallTooLargeError } from '../../errors.ts';
import { executionSeed, fairnessKeyOf, type ExecutionRequest } from '../executions/execution-start-options.ts';
import { defaultAnswer, type StartedExecution } from '../executions/execution-starter.ts';
import { isWorkflowClosedError, unavailable } from '../../infrastructure/temporal/temporal-unavailable.ts';

/** A collector that ends just as the update arrives aborts it unaccepted; the next try starts a new run (or reaches the same one). */
const ATTEMPTS = 3;

export interface CallCollectorOptions {
  client: Client;
  taskQueue: string;
  temporalTimeoutMs: number;
}

export function createCallCollector(options: CallCollectorOptions) {
  const { client, taskQueue } = options;

  async function collect(request: ExecutionRequest): Promise<StartedExecution & { repeated: boolean }> {
    const plan = request.collect!;
    const hidden = request.input.trigger.doNotLogPayload;
    const sensitive = <T>(value: T): T => (hidden ? markSensitive(value) : value);
    const call: CollectedCall = sensitive({
      callId: plan.callId,
      keyed: plan.keyed,
      ...(plan.payloadDigest !== undefined && { payloadDigest: plan.payloadDigest }),
      payloadJson: request.input.payloadJson,
      ...(request.input.direct && { direct: request.input.direct }),
      caller: request.input.caller,
      held: plan.held,
      seed: executionSeed(request, taskQueue),
    });
    // A call no window can take (its execution input would pass the cap) could never run: refused before it is collected.
    if (!fitsAlone(jsonBytes(templateOf(request.input)), collectedCallBytes(call))) throw tooLarge(plan.policy.kind);
    // The update id tells a retry (same call) from another payload under the same key.
    const updateId = plan.payloadDigest ? `${plan.callId}/${plan.payloadDigest.slice(0, 32)}` : plan.callId;
    const answer = request.joinOnly
      ? await joinOnly(plan.collectorId, call, updateId)
      : await collectWithStart(request, call, updateId, sensitive);
    if (answer.reused) {
      throw new IdempotencyKeyReusedError(
        `The idempotency key was already used for a call with another payload (execution ${answer.executionId}); use a new key for a new call`,
      );
    }
    await request.onStarted?.();
    return { ...defaultAnswer(request, answer.executionId, 'INSTANT_RETURN'), repeated: answer.repeated };
  }

  async function collectWithStart(
    request: ExecutionRequest,
    call: CollectedCall,
    updateId: string,
    sensitive: <T>(value: T) => T,
  ) {
    const plan = request.collect!;
    const input: CollectorInput = sensitive({ policy: plan.policy, template: templateOf(request.input) });
    for (let attempt = 1; ; attempt++) {
      const operation = new WithStartWorkflowOperation<CollectorWorkflow>(COLLECTOR_WORKFLOW_TYPE, {
        workflowId: plan.collectorId,
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        priority: { priorityKey: COORDINATOR_PRIORITY, fairnessKey: fairnessKeyOf(request.input.company) },
        staticSummary: plan.summary,
      });
      try {
        return await client.connection.withDeadline(Date.now() + options.temporalTimeoutMs, () =>
          client.workflow.executeUpdateWithStart(collectCallUpdate, {
            args: [call],
            updateId,
            startWorkflowOperation: operation,
          }),
        );
      } catch (error) {
        if (isTooLarge(error)) throw tooLarge(plan.policy.kind);
        // Closed, or the update aborted before it was accepted (nothing of it in the history): the same update id again.
        if (
          attempt < ATTEMPTS &&
          (isWorkflowClosedError(error) || /update was aborted/i.test(error instanceof Error ? error.message : ''))
        )
          continue;
        throw unavailable(error);
      }
    }
  }

  /** A provider delivery the engines remember: it may join its window, never open one. */
  async function joinOnly(collectorId: string, call: CollectedCall, updateId: string) {
    try {
      return await client.connection.withDeadline(Date.now() + options.temporalTimeoutMs, () =>
        client.workflow
          .getHandle<CollectorWorkflow>(collectorId)
          .executeUpdate(collectCallUpdate, { args: [call], updateId }),
      );
    } catch (error) {
      if (isTooLarge(error)) throw tooLarge('debounce or batch');
      if (isWorkflowClosedError(error))
        throw new FailedPreconditionError(
          'This call repeats one accepted earlier whose collected execution Temporal no longer tracks; nothing was collected',
        );
      throw unavailable(error);
    }
  }

  return { collect };
}

export type CallCollector = ReturnType<typeof createCallCollector>;

/** The input of every execution the collector starts, minus what each window brings. */
function templateOf(input: ExecutionRequest['input']): ExecutionTemplate {
  const {
    payloadJson: _payload,
    caller: _caller,
    direct: _direct,
    executionGrant: _grant,
    control: _control,
    coalesced: _coalesced,
    batch: _batch,
    ...template
  } = input;
  return template;
}

function tooLarge(control: string): CallTooLargeError {
  return new CallTooLargeError(
    `The call is too large for this flow's ${control} window: as the execution's input (the payload as a JSON string, headers, the flow's steps) it would pass ${COLLECTED_LIMITS.windowBytes} bytes; nothing was collected`,
  );
}

/** The collector refused the call (its update validator): no window could take it. */
function isTooLarge(error: unknown): boolean {
  return (
    error instanceof WorkflowUpdateFailedError &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === COLLECTED_CALL_TOO_LARGE
  );
}
