// Starts executions on Temporal: a plain start for Instant return, and
// Update-With-Start for Wait for Response step. Every call is
// bounded by a deadline; only a start Temporal acknowledged counts as started.
import {
  isGrpcDeadlineError,
  isGrpcServiceError,
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { FLOW_WORKFLOW_TYPE, type FlowWorkflow, type WebhookResponse } from '../../../flow/index.ts';
import { webhookAnswerQuery, webhookResponseUpdate } from '../../../flow/flow-messages.ts';
import type { CallAbandonment } from '../../infrastructure/temporal/call-abandonment.ts';
import { watchStart } from './start-watchdog.ts';
import { PAYLOAD_DIGEST_MEMO, startOptions, type ExecutionRequest } from './execution-start-options.ts';
import { FailedPreconditionError, FlowFailedError, IdempotencyKeyReusedError, UnavailableError } from '../../errors.ts';
import type { AdmissionGate } from '../../../flow/flow-control-contract.ts';
import { isWorkflowClosedError, unavailable } from '../../infrastructure/temporal/temporal-unavailable.ts';

const GRPC_UNAVAILABLE = 14;

/**
 * What starting an execution asks of flow control's gates (flow-control/gate-entry.ts implements it):
 * the cap on waiting executions, and the hand-over of a delayed execution to its first gate.
 */
export interface GateEntry {
  /** Before the start: refuses the call (LimitRefusedError, 429) when a gate is full; how long the execution sleeps first. */
  admit(gates: readonly AdmissionGate[]): { startDelayMs: number };
  /** Temporal acknowledged the start: the execution waits at its gates; one started with a delay is handed to its first. */
  accepted(executionId: string, gates: readonly AdmissionGate[], handOver: boolean): Promise<void>;
}

export interface StartedExecution extends WebhookResponse {
  executionId: string;
  /** The call joined an execution that existed already (a repeated idempotency key). */
  joined?: boolean;
  /** It joined by a payload-derived key although its body differs from the first call's (ExecutionRequest.joinsAnyBody). */
  bodyDiffers?: boolean;
}

export interface ExecutionStarterOptions {
  client: Client;
  abandonment: CallAbandonment;
  taskQueue: string;
  temporalTimeoutMs: number;
  syncGraceMs: number;
  /** Told when Temporal acknowledged a start, and how long that took (engine/metrics). */
  onStartAcknowledged?: (mode: 'instant' | 'sync', seconds: number) => void;
  /** Flow control's gates: the cap on waiting executions, and the hand-over of a delayed execution to its first gate. */
  gates?: GateEntry;
}

export function createExecutionStarter(options: ExecutionStarterOptions) {
  const { client, taskQueue } = options;

  /** Instant return: durable once Temporal acknowledges the start. */
  async function startInstant(request: ExecutionRequest): Promise<StartedExecution> {
    const { defaultResponse } = request.input.trigger;
    const gates = gatesOf(request);
    // Refused here (429) when a gate is full; otherwise the execution sleeps until its gates let it pass.
    const entry = gates && options.gates?.admit(gates);
    // Same idempotency key: that call was accepted; with the same payload it is answered again.
    const joined =
      request.joinOnly || !(await startedNow(entry ? { ...request, startDelayMs: entry.startDelayMs } : request));
    const { bodyDiffers } = joined ? await existingExecution(request) : { bodyDiffers: false };
    if (!joined && gates) await options.gates?.accepted(request.executionId, gates, true);
    await request.onStarted?.();
    return {
      executionId: request.executionId,
      ...defaultResponse,
      body: '',
      defaultResponse: true,
      outcome: 'INSTANT_RETURN',
      ...(joined && { joined }),
      ...(bodyDiffers && { bodyDiffers }),
    };
  }

  /** Whether this call started the execution; false when its (keyed) id is taken already. */
  async function startedNow(request: ExecutionRequest): Promise<boolean> {
    const sent = performance.now();
    try {
      await client.connection.withDeadline(Date.now() + options.temporalTimeoutMs, () =>
        client.workflow.start<FlowWorkflow>(FLOW_WORKFLOW_TYPE, startOptions(request, taskQueue)),
      );
      options.onStartAcknowledged?.('instant', (performance.now() - sent) / 1000);
      return true;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw unavailable(error);
      return false;
    }
  }

  /** Wait for Response step: answers with the workflow's `webhookResponse` update. */
  async function startAndWait(request: ExecutionRequest): Promise<StartedExecution> {
    const deadline = Date.now() + request.input.trigger.syncTimeoutMs + options.syncGraceMs;
    if (request.joinOnly) return joinExisting(request, deadline);
    // A sync execution runs at once (Update-With-Start has no start delay) and asks its gate itself.
    const gates = gatesOf(request);
    if (gates) options.gates?.admit(gates);
    const operation = new WithStartWorkflowOperation<FlowWorkflow>(
      FLOW_WORKFLOW_TYPE,
      startOptions(request, taskQueue),
    );
    const sent = performance.now();
    // The handle resolves when Temporal acknowledged the start half, long before the update answers.
    if (options.onStartAcknowledged)
      operation.workflowHandle().then(
        () => options.onStartAcknowledged!('sync', (performance.now() - sent) / 1000),
        () => undefined,
      );
    // Told at the acknowledgement, not after the sync window: an engine that stops while the caller waits has told it already.
    const started = operation.workflowHandle().then(async () => {
      if (gates) await options.gates?.accepted(request.executionId, gates, false);
      await request.onStarted?.();
    });
    started.catch(() => undefined);
    const update = options.abandonment.tagged(client.connection, () =>
      client.connection.withDeadline(deadline, () =>
        client.workflow.executeUpdateWithStart(webhookResponseUpdate, {
          updateId: webhookUpdateId(request),
          startWorkflowOperation: operation,
        }),
      ),
    );
    // Giving up abandons the call, so no later retry can start the execution after the caller got 503.
    const watchdog = watchStart(client, operation.workflowHandle(), options.temporalTimeoutMs, update.abandon);
    try {
      // The cancelled call may settle only after its current attempt fails; the caller need not wait for that.
      const response = await Promise.race([update.result, watchdog.abandoned]);
      await started;
      return { executionId: request.executionId, ...response };
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        const joined = await joinExisting(request, deadline);
        await request.onStarted?.();
        return joined;
      }
      if (error instanceof WorkflowUpdateFailedError) {
        await started;
        throw flowFailedBeforeResponding(request.executionId, error);
      }
      // The update did not answer in time (e.g. no worker polls yet). If the start was
      // acknowledged the execution is durable and will run: that is the sync-timeout answer.
      if (await wasStarted(operation)) {
        await started;
        return syncTimeout(request);
      }
      if (watchdog.gaveUp)
        throw new UnavailableError('Temporal is unavailable: it did not answer while the execution was being started');
      throw unavailable(error);
    } finally {
      watchdog.stop();
    }
  }

  /**
   * The execution a keyed call's id already names: refused when its payload differs (the caller
   * reused a key for another call) — unless the key comes from the payload, the flow's own statement
   * of identity, which joins whatever the body — otherwise whether it still runs.
   */
  async function existingExecution(request: ExecutionRequest): Promise<{ running: boolean; bodyDiffers: boolean }> {
    const handle = client.workflow.getHandle(request.executionId);
    let description: Awaited<ReturnType<typeof handle.describe>>;
    try {
      description = await client.connection.withDeadline(Date.now() + options.temporalTimeoutMs, () =>
        handle.describe(),
      );
    } catch (error) {
      // Closed longer ago than the namespace's retention: what it answered is gone, and it is not started again.
      if (error instanceof WorkflowNotFoundError)
        throw new FailedPreconditionError(
          `This call repeats one accepted earlier (execution ${request.executionId}) that Temporal no longer keeps; nothing was started`,
        );
      throw unavailable(error);
    }
    const stored = (description.memo?.[PAYLOAD_DIGEST_MEMO] as { hmac?: unknown } | undefined)?.hmac;
    const bodyDiffers = typeof stored === 'string' && stored !== request.payloadDigest;
    if (bodyDiffers && !request.joinsAnyBody) {
      throw new IdempotencyKeyReusedError(
        `The idempotency key was already used for a call with another payload (execution ${request.executionId}); use a new key for a new call`,
      );
    }
    return { running: description.status.name === 'RUNNING', bodyDiffers };
  }

  /** A retried sync call: waits with the first call's update while the execution runs, or gets the answer it gave. */
  async function joinExisting(request: ExecutionRequest, deadline: number): Promise<StartedExecution> {
    const { running, bodyDiffers } = await existingExecution(request);
    const joined = { joined: true, ...(bodyDiffers && { bodyDiffers }) };
    if (running) {
      const handle = client.workflow.getHandle(request.executionId);
      try {
        // The first call's update id: Temporal hands this call that update's outcome (another body's id gets the same answer anew).
        const response = await client.connection.withDeadline(deadline, () =>
          handle.executeUpdate(webhookResponseUpdate, { updateId: webhookUpdateId(request) }),
        );
        return { executionId: request.executionId, ...response, ...joined };
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError) throw flowFailedBeforeResponding(request.executionId, error);
        if (!isWorkflowClosedError(error)) {
          if (isGrpcDeadlineError(error)) return { ...syncTimeout(request), ...joined };
          throw unavailable(error);
        }
        // It closed meanwhile: its answer is final now.
      }
    }
    return { ...(await answerOfClosed(request.executionId)), ...joined };
  }

  /** A retried sync call whose execution already closed gets the answer that execution gave. */
  async function answerOfClosed(executionId: string): Promise<StartedExecution> {
    const handle = client.workflow.getHandle<FlowWorkflow>(executionId);
    const deadline = Date.now() + options.temporalTimeoutMs;
    try {
      const result = await client.connection.withDeadline(deadline, () => handle.result());
      return { executionId, ...result.response };
    } catch (error) {
      if (!(error instanceof WorkflowFailedError)) throw unavailable(error);
    }
    // The execution failed: the caller was answered if it failed after responding (a worker replays it to tell).
    try {
      const answer = await client.connection.withDeadline(deadline, () => handle.query(webhookAnswerQuery));
      return { executionId, ...answer };
    } catch (error) {
      if (isGrpcDeadlineError(error) || (isGrpcServiceError(error) && error.code === GRPC_UNAVAILABLE))
        throw unavailable(error);
      throw new FlowFailedError(`The flow failed before it responded (execution ${executionId})`);
    }
  }

  /** When the execution with this id started, if Temporal has one (a payload-derived key's window, engine/domain/flow-control/payload-keys.ts). */
  async function startTimeOf(executionId: string): Promise<Date | undefined> {
    try {
      const description = await client.connection.withDeadline(Date.now() + options.temporalTimeoutMs, () =>
        client.workflow.getHandle(executionId).describe(),
      );
      return description.startTime;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw unavailable(error);
    }
  }

  return { startInstant, startAndWait, startTimeOf };
}

/** The gates a new execution of this request passes, if any (a call that joins an execution passes none). */
function gatesOf(request: ExecutionRequest) {
  const gates = request.input.control?.gates;
  return !request.joinOnly && gates && gates.length > 0 ? gates : undefined;
}

/**
 * Temporal answers an update whose id it has seen with that update's outcome, before it looks at
 * the conflict policy. A keyed call's update id therefore carries its payload digest: the same
 * call again is handed the first answer, another payload under the key is told the id is taken.
 */
function webhookUpdateId(request: ExecutionRequest): string {
  return request.payloadDigest ? `${request.executionId}/${request.payloadDigest.slice(0, 32)}` : request.executionId;
}

function syncTimeout(request: ExecutionRequest): StartedExecution {
  return defaultAnswer(request, request.executionId, 'SYNC_TIMEOUT');
}

/** The trigger's default response (no body), for a call answered without the flow's own answer. */
export function defaultAnswer(
  request: ExecutionRequest,
  executionId: string,
  outcome: 'SYNC_TIMEOUT' | 'INSTANT_RETURN',
): StartedExecution {
  return { executionId, ...request.input.trigger.defaultResponse, body: '', defaultResponse: true, outcome };
}

function flowFailedBeforeResponding(executionId: string, error: WorkflowUpdateFailedError): FlowFailedError {
  const cause = error.cause instanceof ApplicationFailure ? error.cause.message : 'the flow failed';
  return new FlowFailedError(`The flow failed before it responded (execution ${executionId}): ${cause}`);
}

async function wasStarted(operation: WithStartWorkflowOperation<FlowWorkflow>): Promise<boolean> {
  const settled = await Promise.race([
    operation.workflowHandle().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 50).unref()),
  ]);
  return settled;
}

export type ExecutionStarter = ReturnType<typeof createExecutionStarter>;
