// Starts executions on Temporal: a plain start for Instant return, and
// Update-With-Start for Wait for Response step. Every call is
// bounded by a deadline; only a start Temporal acknowledged counts as started.
import { createHash, randomUUID } from 'node:crypto';
import { isGrpcDeadlineError, isGrpcServiceError, WithStartWorkflowOperation, WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError, type SearchAttributePair } from '@temporalio/common';
import { FLOW_WORKFLOW_TYPE, type FlowExecutionInput, type FlowWorkflow, type WebhookResponse } from '../../workflows/shared/index.ts';
import { webhookAnswerQuery, webhookResponseUpdate } from '../../workflows/shared/flow-messages.ts';
import { DO_NOT_LOG_PAYLOAD_MEMO, markSensitive } from '../../workflows/shared/payload-converter.ts';
import type { CallAbandonment } from './call-abandonment.ts';
import { watchStart } from './start-watchdog.ts';
import { executionDetails, executionSummary, type RerunOrigin } from './execution-summary.ts';
import { RUN_MARK_MEMO } from '../security/execution-grants.ts';
import { FailedPreconditionError, FlowFailedError, IdempotencyKeyReusedError, UnavailableError } from '../errors.ts';

const GRPC_UNAVAILABLE = 14;
const GRPC_NOT_FOUND = 5;
/** Memo key of a keyed execution's payload digest, checked when the key comes again. */
const PAYLOAD_DIGEST_MEMO = 'idempotency';
/** Memo key naming the execution a re-run repeats (also the `RerunOf` search attribute, which a cluster may lack). */
export const RERUN_OF_MEMO = 'rerunOf';

export interface ExecutionRequest {
  input: FlowExecutionInput;
  /**
   * Set when the id comes from an Idempotency-Key: the HMAC of the payload text (webhook/idempotency.ts). An execution
   * with that id is never started again, and a call with the key but another payload is refused.
   */
  payloadDigest?: string;
  /** The caller's Idempotency-Key, shown in the execution's details. */
  idempotencyKey?: string;
  workflowId: string;
  /** The run mark of the execution's grant (security/execution-grants.ts), kept in the memo. */
  runMark: string;
  searchAttributes?: SearchAttributePair[];
  /** Set for a re-run (engine/executions/rerun-execution.ts): the execution it repeats and the admin account that asked. */
  rerun?: RerunOrigin;
  /**
   * A keyed call that must start nothing (a provider delivery the engines remember,
   * direct/delivery-memory.ts): it joins or replays the execution `workflowId` names, and is
   * refused when Temporal no longer keeps that execution.
   */
  joinOnly?: boolean;
  /** Awaited once Temporal acknowledged the start, or the execution turned out to exist already, before the call is answered. */
  onStarted?: () => Promise<void>;
}

export interface StartedExecution extends WebhookResponse {
  executionId: string;
}

export interface ExecutionStarterOptions {
  client: Client;
  abandonment: CallAbandonment;
  taskQueue: string;
  temporalTimeoutMs: number;
  syncGraceMs: number;
  /** Told when Temporal acknowledged a start, and how long that took (engine/metrics). */
  onStartAcknowledged?: (mode: 'instant' | 'sync', seconds: number) => void;
}

/** Temporal's limit on a fairness key. */
const MAX_FAIRNESS_KEY_BYTES = 64;

/**
 * The company's name as Temporal's fairness key; a name longer than the key may be (names go up
 * to 250 characters) is cut and told apart from others with the same start by a digest of the whole.
 */
export function fairnessKeyOf(company: string): string {
  if (Buffer.byteLength(company, 'utf8') <= MAX_FAIRNESS_KEY_BYTES) return company;
  const digest = createHash('sha256').update(company, 'utf8').digest('base64url').slice(0, 16);
  let prefix = '';
  // Whole characters only (code points), so the key stays valid UTF-8.
  for (const character of company) {
    if (Buffer.byteLength(prefix + character, 'utf8') > MAX_FAIRNESS_KEY_BYTES - digest.length - 1) break;
    prefix += character;
  }
  return `${prefix}~${digest}`;
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
    // The grant works only for the run that carries its mark (security/execution-grants.ts); not secret, never encrypted.
    const memo: Record<string, unknown> = { [RUN_MARK_MEMO]: request.runMark };
    if (hidePayload) memo[DO_NOT_LOG_PAYLOAD_MEMO] = true;
    // Even a digest says something about a payload: for doNotLogPayload flows it is encrypted too.
    if (request.payloadDigest) memo[PAYLOAD_DIGEST_MEMO] = maybeSensitive({ hmac: request.payloadDigest }, hidePayload);
    if (request.rerun) memo[RERUN_OF_MEMO] = request.rerun.of;
    return {
      taskQueue,
      workflowId: request.workflowId,
      args: [maybeSensitive(request.input, hidePayload)] as [FlowExecutionInput],
      memo,
      // A keyed call whose execution exists (running or closed) must not start another: it is
      // told so, checks the payload and joins or replays (joinExisting).
      workflowIdConflictPolicy: 'FAIL' as const,
      // Only keyed ids can recur, and the reuse check costs the server a lookup (~20 ms on the dev
      // server), so fresh ids keep the default policy.
      workflowIdReusePolicy: request.payloadDigest ? ('REJECT_DUPLICATE' as const) : undefined,
      typedSearchAttributes: request.searchAttributes,
      // Task dispatch is fair between companies: one company's backlog does not hold up another's
      // executions (needs matching.enableFairness on the server; ignored where it is off).
      // Activities inherit it from the workflow.
      priority: { fairnessKey: fairnessKeyOf(request.input.company) },
      // The Temporal UI's list row and header: what this execution is, without opening it.
      staticSummary: executionSummary(request.input),
      staticDetails: executionDetails(request.input, request.workflowId, request.idempotencyKey, request.rerun),
    };
  }

  /** Instant return: durable once Temporal acknowledges the start. */
  async function startInstant(request: ExecutionRequest): Promise<StartedExecution> {
    const { defaultResponse } = request.input.trigger;
    // Same idempotency key: that call was accepted; with the same payload it is answered again.
    if (request.joinOnly || !(await startedNow(request))) await existingExecution(request);
    await request.onStarted?.();
    return { executionId: request.workflowId, ...defaultResponse, body: '', defaultResponse: true, outcome: 'INSTANT_RETURN' };
  }

  /** Whether this call started the execution; false when its (keyed) id is taken already. */
  async function startedNow(request: ExecutionRequest): Promise<boolean> {
    const sent = performance.now();
    try {
      await client.connection.withDeadline(Date.now() + options.temporalTimeoutMs, () =>
        client.workflow.start<FlowWorkflow>(FLOW_WORKFLOW_TYPE, startOptions(request)),
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
    const operation = new WithStartWorkflowOperation<FlowWorkflow>(FLOW_WORKFLOW_TYPE, startOptions(request));
    const sent = performance.now();
    // The handle resolves when Temporal acknowledged the start half, long before the update answers.
    if (options.onStartAcknowledged) operation.workflowHandle().then(() => options.onStartAcknowledged!('sync', (performance.now() - sent) / 1000), () => undefined);
    // Told at the acknowledgement, not after the sync window: an engine that stops while the caller waits has told it already.
    const started = operation.workflowHandle().then(() => request.onStarted?.());
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
      return { executionId: request.workflowId, ...response };
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        const joined = await joinExisting(request, deadline);
        await request.onStarted?.();
        return joined;
      }
      if (error instanceof WorkflowUpdateFailedError) {
        await started;
        throw flowFailedBeforeResponding(request.workflowId, error);
      }
      // The update did not answer in time (e.g. no worker polls yet). If the start was
      // acknowledged the execution is durable and will run: that is the sync-timeout answer.
      if (await wasStarted(operation)) {
        await started;
        return syncTimeout(request);
      }
      if (watchdog.gaveUp) throw new UnavailableError('Temporal is unavailable: it did not answer while the execution was being started');
      throw unavailable(error);
    } finally {
      watchdog.stop();
    }
  }

  /**
   * The execution a keyed call's id already names: refused when its payload differs (the caller
   * reused a key for another call), otherwise whether it still runs.
   */
  async function existingExecution(request: ExecutionRequest): Promise<{ running: boolean }> {
    const handle = client.workflow.getHandle(request.workflowId);
    let description: Awaited<ReturnType<typeof handle.describe>>;
    try {
      description = await client.connection.withDeadline(Date.now() + options.temporalTimeoutMs, () => handle.describe());
    } catch (error) {
      // Closed longer ago than the namespace's retention: what it answered is gone, and it is not started again.
      if (error instanceof WorkflowNotFoundError) throw new FailedPreconditionError(`This call repeats one accepted earlier (execution ${request.workflowId}) that Temporal no longer keeps; nothing was started`);
      throw unavailable(error);
    }
    const stored = (description.memo?.[PAYLOAD_DIGEST_MEMO] as { hmac?: unknown } | undefined)?.hmac;
    if (typeof stored === 'string' && stored !== request.payloadDigest) {
      throw new IdempotencyKeyReusedError(
        `The idempotency key was already used for a call with another payload (execution ${request.workflowId}); use a new key for a new call`,
      );
    }
    return { running: description.status.name === 'RUNNING' };
  }

  /** A retried sync call: waits with the first call's update while the execution runs, or gets the answer it gave. */
  async function joinExisting(request: ExecutionRequest, deadline: number): Promise<StartedExecution> {
    const { running } = await existingExecution(request);
    if (running) {
      const handle = client.workflow.getHandle(request.workflowId);
      try {
        // The first call's update id: Temporal hands this call that update's outcome.
        const response = await client.connection.withDeadline(deadline, () =>
          handle.executeUpdate(webhookResponseUpdate, { updateId: webhookUpdateId(request) }),
        );
        return { executionId: request.workflowId, ...response };
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError) throw flowFailedBeforeResponding(request.workflowId, error);
        if (!isWorkflowClosedError(error)) {
          if (isGrpcDeadlineError(error)) return syncTimeout(request);
          throw unavailable(error);
        }
        // It closed meanwhile: its answer is final now.
      }
    }
    return answerOfClosed(request.workflowId);
  }

  /** A retried sync call whose execution already closed gets the answer that execution gave. */
  async function answerOfClosed(workflowId: string): Promise<StartedExecution> {
    const handle = client.workflow.getHandle<FlowWorkflow>(workflowId);
    const deadline = Date.now() + options.temporalTimeoutMs;
    try {
      const result = await client.connection.withDeadline(deadline, () => handle.result());
      return { executionId: workflowId, ...result.response };
    } catch (error) {
      if (!(error instanceof WorkflowFailedError)) throw unavailable(error);
    }
    // The execution failed: the caller was answered if it failed after responding (a worker replays it to tell).
    try {
      const answer = await client.connection.withDeadline(deadline, () => handle.query(webhookAnswerQuery));
      return { executionId: workflowId, ...answer };
    } catch (error) {
      if (isGrpcDeadlineError(error) || (isGrpcServiceError(error) && error.code === GRPC_UNAVAILABLE)) throw unavailable(error);
      throw new FlowFailedError(`The flow failed before it responded (execution ${workflowId})`);
    }
  }

  return { startInstant, startAndWait };
}

/**
 * Temporal answers an update whose id it has seen with that update's outcome, before it looks at
 * the conflict policy. A keyed call's update id therefore carries its payload digest: the same
 * call again is handed the first answer, another payload under the key is told the id is taken.
 */
function webhookUpdateId(request: ExecutionRequest): string {
  return request.payloadDigest ? `${request.workflowId}/${request.payloadDigest.slice(0, 32)}` : request.workflowId;
}

function syncTimeout(request: ExecutionRequest): StartedExecution {
  const { defaultResponse } = request.input.trigger;
  return { executionId: request.workflowId, ...defaultResponse, body: '', defaultResponse: true, outcome: 'SYNC_TIMEOUT' };
}

function flowFailedBeforeResponding(workflowId: string, error: WorkflowUpdateFailedError): FlowFailedError {
  const cause = error.cause instanceof ApplicationFailure ? error.cause.message : 'the flow failed';
  return new FlowFailedError(`The flow failed before it responded (execution ${workflowId}): ${cause}`);
}

/** An update sent to an execution that has just closed. */
function isWorkflowClosedError(error: unknown): boolean {
  return error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND) || /already completed/i.test(error instanceof Error ? error.message : '');
}

function maybeSensitive<T>(value: T, sensitive: boolean): T {
  return sensitive ? markSensitive(value) : value;
}

async function wasStarted(operation: WithStartWorkflowOperation<FlowWorkflow>): Promise<boolean> {
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
