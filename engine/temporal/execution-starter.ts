// Starts executions on Temporal: a plain start for Instant return, and
// Update-With-Start for Wait for Response step (DESIGN.md). Every call is
// bounded by a deadline; only a start Temporal acknowledged counts as started.
import { randomUUID } from 'node:crypto';
import { isGrpcDeadlineError, isGrpcServiceError, WithStartWorkflowOperation, WorkflowFailedError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError, type SearchAttributePair, type Workflow } from '@temporalio/common';
import {
  FLOW_WORKFLOW_TYPE,
  WEBHOOK_ANSWER_QUERY,
  WEBHOOK_RESPONSE_UPDATE,
  type FlowExecutionInput,
  type FlowExecutionResult,
  type WebhookResponse,
} from '../../workflows/shared/index.ts';
import { DO_NOT_LOG_PAYLOAD_MEMO, markSensitive } from '../../workflows/shared/payload-converter.ts';
import { FlowFailedError, UnavailableError } from '../errors.ts';

const GRPC_UNAVAILABLE = 14;

export interface ExecutionRequest {
  input: FlowExecutionInput;
  /** The id comes from an Idempotency-Key: a closed execution with it must not be started again. */
  idempotent: boolean;
  workflowId: string;
  searchAttributes?: SearchAttributePair[];
}

export interface StartedExecution extends WebhookResponse {
  executionId: string;
}

export interface ExecutionStarterOptions {
  client: Client;
  taskQueue: string;
  temporalTimeoutMs: number;
  syncGraceMs: number;
}

/** `<activity>:<uuid>`: the activity is visible in the Temporal UI's id column. */
export function newExecutionId(activity: string): string {
  return `${activity}:${randomUUID()}`;
}

export function createExecutionStarter(options: ExecutionStarterOptions) {
  const { client, taskQueue } = options;

  function startOptions(request: ExecutionRequest) {
    // doNotLogPayload: the marked input and everything the workflow produces (it reads the memo) is encrypted by the codec.
    const hidePayload = request.input.trigger.doNotLogPayload;
    return {
      taskQueue,
      workflowId: request.workflowId,
      args: [hidePayload ? markSensitive(request.input) : request.input] as [FlowExecutionInput],
      memo: hidePayload ? { [DO_NOT_LOG_PAYLOAD_MEMO]: true } : undefined,
      // A retried call with the same (deterministic) id joins the running execution instead of starting a second.
      workflowIdConflictPolicy: 'USE_EXISTING' as const,
      // Only keyed ids can recur, and the reuse check costs the server a lookup (~20 ms on the dev
      // server), so fresh ids keep the default policy.
      workflowIdReusePolicy: request.idempotent ? ('REJECT_DUPLICATE' as const) : undefined,
      typedSearchAttributes: request.searchAttributes,
    };
  }

  /** Instant return: durable once Temporal acknowledges the start. */
  async function startInstant(request: ExecutionRequest): Promise<StartedExecution> {
    const { defaultResponse } = request.input.trigger;
    try {
      await client.connection.withDeadline(Date.now() + options.temporalTimeoutMs, () =>
        client.workflow.start(FLOW_WORKFLOW_TYPE, startOptions(request)),
      );
    } catch (error) {
      // Same idempotency key after the first execution closed: that call was accepted; answer it again.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw unavailable(error);
    }
    return { executionId: request.workflowId, ...defaultResponse, body: '', defaultResponse: true, outcome: 'INSTANT_RETURN' };
  }

  /** Wait for Response step: answers with the workflow's `webhookResponse` update. */
  async function startAndWait(request: ExecutionRequest): Promise<StartedExecution> {
    const operation = new WithStartWorkflowOperation(FLOW_WORKFLOW_TYPE, startOptions(request));
    const deadline = Date.now() + request.input.trigger.syncTimeoutMs + options.syncGraceMs;
    try {
      const response = await client.connection.withDeadline(deadline, () =>
        client.workflow.executeUpdateWithStart<Workflow, WebhookResponse, []>(WEBHOOK_RESPONSE_UPDATE, {
          updateId: request.workflowId,
          startWorkflowOperation: operation,
        }),
      );
      return { executionId: request.workflowId, ...response };
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return answerOfClosed(request.workflowId);
      if (error instanceof WorkflowUpdateFailedError) {
        const cause = error.cause instanceof ApplicationFailure ? error.cause.message : 'the flow failed';
        throw new FlowFailedError(`The flow failed before it responded (execution ${request.workflowId}): ${cause}`);
      }
      // The update did not answer in time (e.g. no worker polls yet). If the start was
      // acknowledged the execution is durable and will run: that is the sync-timeout answer.
      if (await wasStarted(operation)) {
        const { defaultResponse } = request.input.trigger;
        return { executionId: request.workflowId, ...defaultResponse, body: '', defaultResponse: true, outcome: 'SYNC_TIMEOUT' };
      }
      throw unavailable(error);
    }
  }

  /** A retried sync call whose execution already closed gets the answer that execution gave. */
  async function answerOfClosed(workflowId: string): Promise<StartedExecution> {
    const handle = client.workflow.getHandle(workflowId);
    const deadline = Date.now() + options.temporalTimeoutMs;
    try {
      const result = await client.connection.withDeadline(deadline, () => handle.result() as Promise<FlowExecutionResult>);
      return { executionId: workflowId, ...result.response };
    } catch (error) {
      if (!(error instanceof WorkflowFailedError)) throw unavailable(error);
    }
    // The execution failed: the caller was answered if it failed after responding (a worker replays it to tell).
    try {
      const answer = await client.connection.withDeadline(deadline, () => handle.query<WebhookResponse>(WEBHOOK_ANSWER_QUERY));
      return { executionId: workflowId, ...answer };
    } catch (error) {
      if (isGrpcDeadlineError(error) || (isGrpcServiceError(error) && error.code === GRPC_UNAVAILABLE)) throw unavailable(error);
      throw new FlowFailedError(`The flow failed before it responded (execution ${workflowId})`);
    }
  }

  return { startInstant, startAndWait };
}

async function wasStarted(operation: WithStartWorkflowOperation<Workflow>): Promise<boolean> {
  const settled = await Promise.race([
    operation.workflowHandle().then(() => true, () => false),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 50).unref()),
  ]);
  return settled;
}

function unavailable(error: unknown): UnavailableError {
  const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new UnavailableError(`Temporal is unavailable: ${reason}`);
}

export type ExecutionStarter = ReturnType<typeof createExecutionStarter>;
