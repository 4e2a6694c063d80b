// Hands one callback to the step a stored wait names, the same way for both
// doors (a callback URL, deliver-callback.ts; a correlation key,
// resume-callback.ts): answered from the table when the step already accepted
// a callback (the same body gets the first answer again, another is refused),
// otherwise sent to the execution as `callbackUpdate` (flow-messages.ts), whose
// validator decides whether the step still takes one. The update id carries
// the body's digest, so a delivery retried after the engine gave up waiting
// (no worker yet, a timeout) is handed the outcome of the first instead of
// being refused as a second callback.
import type { MikroORM } from '@mikro-orm/postgresql';
import { isGrpcServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from 'pino';
import {
  CALLBACK_ALREADY_RECEIVED,
  CALLBACK_EXPIRED,
  CALLBACK_UNKNOWN_STEP,
  DEFAULT_CALLBACK_STATUS,
  type CallbackAccepted,
  type CallbackDelivery,
} from '../../../flow/index.ts';
import { callbackUpdate } from '../../../flow/flow-messages.ts';
import { markSensitive } from '../../../flow/payload-converter.ts';
import { firstLineOf, temporalUnavailable } from '../../infrastructure/temporal/temporal-unavailable.ts';
import type { CallbackWait } from '../../infrastructure/storage/entities.ts';
import { bodyDigest, sameDigest, type CallbackKeys } from './callback-digests.ts';
import {
  CallbackNotFoundError,
  CallbackUsedError,
  KEY_ALREADY_USED,
  NO_CALLBACK_AT_URL,
  NO_EXECUTION_WAITS_FOR_KEY,
  URL_ALREADY_USED,
  type CallbackRefusalReason,
  type CallbackRoute,
} from './callback-refusals.ts';
import { findWait, forgetWaits, markUsed, type WaitTarget } from './callback-waits.ts';

export interface CallbackDeliveryDeps {
  orm: MikroORM;
  temporal: Client;
  callbackKeys: CallbackKeys;
  logger: Logger;
}

export interface CallbackCall {
  route: CallbackRoute;
  /** Exact UTF-8 text. */
  body: string;
  /** Already filtered (callback-headers.ts). */
  headers: Record<string, string>;
}

export interface DeliveredCallback extends WaitTarget {
  statusCode: number;
  /** A retried delivery of the accepted body, answered from the table. */
  repeated: boolean;
}

// A callback sender waits for its answer: bounded, and an update needs a worker to run its validator.
const UPDATE_TIMEOUT_MS = 10_000;

export async function deliverToWait(
  deps: CallbackDeliveryDeps,
  wait: CallbackWait,
  call: CallbackCall,
): Promise<DeliveredCallback> {
  const target: WaitTarget = { executionId: wait.executionId, step: wait.step };
  const digest = bodyDigest(deps.callbackKeys.body, target, call.body);
  if (wait.usedAt) return answerAgain(wait, digest, call.route);

  let accepted: CallbackAccepted;
  try {
    accepted = await sendUpdate(deps, wait, call, digest);
  } catch (error) {
    return refusedByExecution(deps, wait.lookup, target, digest, call.route, error);
  }
  const statusCode = answerStatus(accepted);
  // The execution holds the callback now; if the table cannot say so, a retry still finds the first answer (the update id).
  await markUsed(deps.orm.em.fork(), target, { status: statusCode, bodyDigest: digest }, new Date()).catch(
    (error: unknown) => {
      deps.logger.warn({ ...target, reason: firstLineOf(error) }, 'callback accepted but not recorded as used');
    },
  );
  return { ...target, statusCode, repeated: false };
}

function sendUpdate(
  deps: CallbackDeliveryDeps,
  wait: CallbackWait,
  call: CallbackCall,
  digest: string,
): Promise<CallbackAccepted> {
  const delivery: CallbackDelivery = { step: wait.step, body: call.body, headers: call.headers };
  const handle = deps.temporal.workflow.getHandle(wait.executionId);
  return deps.temporal.connection.withDeadline(Date.now() + UPDATE_TIMEOUT_MS, () =>
    handle.executeUpdate(callbackUpdate, {
      // doNotLogPayload: the codec encrypts the callback in the execution's history.
      args: [wait.sensitive ? markSensitive(delivery) : delivery],
      updateId: `callback-${wait.step}-${digest.slice(0, 32)}`,
    }),
  );
}

/** The step already took a callback: the same body is answered as it was, any other refused. */
function answerAgain(wait: CallbackWait, digest: string, route: CallbackRoute): DeliveredCallback {
  const target = { executionId: wait.executionId, step: wait.step };
  if (sameDigest(wait.bodyDigest, digest) && wait.answerStatus != null)
    return { ...target, statusCode: wait.answerStatus, repeated: true };
  throw new CallbackUsedError(route === 'url' ? URL_ALREADY_USED : KEY_ALREADY_USED, {
    reason: 'already_used',
    ...target,
  });
}

async function refusedByExecution(
  deps: CallbackDeliveryDeps,
  lookup: string,
  target: WaitTarget,
  digest: string,
  route: CallbackRoute,
  error: unknown,
): Promise<DeliveredCallback> {
  const failureType =
    error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure
      ? (error.cause.type ?? undefined)
      : undefined;
  if (failureType === CALLBACK_ALREADY_RECEIVED) {
    // Another delivery won the race, or this one was accepted before the table said so: the table decides which.
    const current = await findWait(deps.orm.em.fork(), lookup);
    if (current?.usedAt) return answerAgain(current, digest, route);
    throw new CallbackUsedError(route === 'url' ? URL_ALREADY_USED : KEY_ALREADY_USED, {
      reason: 'already_used',
      ...target,
    });
  }
  const gone = goneReason(error, failureType);
  if (gone) {
    // The step can never take a callback now: later deliveries are refused from the table alone.
    await forgetWaits(deps.orm.em.fork(), target).catch(() => undefined);
    throw new CallbackNotFoundError(route === 'url' ? NO_CALLBACK_AT_URL : NO_EXECUTION_WAITS_FOR_KEY, {
      reason: gone,
      ...target,
    });
  }
  if (error instanceof WorkflowUpdateFailedError) {
    // Not one of the contract's refusals: the workflow's message stays in its history, the log gets the type.
    throw new Error(`the execution failed the callback update (${failureType ?? 'no failure type'})`);
  }
  throw temporalUnavailable(error);
}

function goneReason(error: unknown, failureType: string | undefined): CallbackRefusalReason | undefined {
  if (failureType === CALLBACK_EXPIRED) return 'step_expired';
  if (failureType === CALLBACK_UNKNOWN_STEP) return 'unknown_step';
  return isWorkflowClosedError(error) ? 'execution_closed' : undefined;
}

const GRPC_NOT_FOUND = 5;

/** Not found, or closed meanwhile ("workflow execution already completed"). */
function isWorkflowClosedError(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND))
    return true;
  const cause = error instanceof Error ? error.cause : undefined;
  if (isGrpcServiceError(cause) && cause.code === GRPC_NOT_FOUND) return true;
  return [error, cause].some((candidate) => candidate instanceof Error && /already completed/i.test(candidate.message));
}

/** The flow's responseStatus as the update gave it; anything unusable is the default. */
function answerStatus(accepted: CallbackAccepted | undefined): number {
  const status = accepted?.status;
  return Number.isInteger(status) && status! >= 200 && status! <= 299 ? status! : DEFAULT_CALLBACK_STATUS;
}
