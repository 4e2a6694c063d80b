// The WebhookService Connect implementation: a thin adapter from the RPC to
// invokeWebhook; errors become Connect codes in the engine's one interceptor.
// It writes the one line per call the engine decided: `webhook invoked`, or
// `call refused` with the reason for a 401/403 (the facade does not log those
// again). Both get the request id from the request scope (rpc/request-scope-interceptor.ts).
// Callbacks (DeliverCallback, ResumeCallback; engine/domain/callbacks/) write
// `callback delivered`, or `callback refused` with the reason — never the
// token, key or body.
import type { StartedExecution } from '../../domain/executions/execution-starter.ts';
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Logger } from 'pino';
import {
  DeliverCallbackResponseSchema,
  ExecutionState,
  GetAnswerResponseSchema,
  InvokeDirectResponseSchema,
  InvokeOutcome,
  InvokeResponseSchema,
  ResumeCallbackResponseSchema,
  type Caller,
  type WebhookService,
} from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { WebhookOutcome } from '../../../flow/index.ts';
import { logRefusedCall } from '../../../common/refusal-reasons.ts';
import { withRefusalReason } from '../rpc/refusal-metadata.ts';
import { PermissionDeniedError, UnauthenticatedError } from '../../errors.ts';
import { authenticateCaller, claimedCaller } from '../../domain/callers/caller-authentication.ts';
import { invokeWebhook } from '../../domain/webhook/invoke-webhook.ts';
import { DirectRefusedError, invokeDirect, type InvokeDirectDeps } from '../../domain/webhook/invoke-direct.ts';
import { serviceAccountOf } from '../../domain/callers/call-context.ts';
import type { EngineMetrics } from '../../domain/metrics/engine-metrics.ts';
import {
  AnswerNotFoundError,
  answerToHand,
  getAnswer,
  type ExecutionStateName,
  type GetAnswerDeps,
} from '../../domain/webhook/get-answer.ts';
import { deliverCallback } from '../../domain/callbacks/deliver-callback.ts';
import { resumeCallback } from '../../domain/callbacks/resume-callback.ts';
import { refusalOf, type CallbackRoute } from '../../domain/callbacks/callback-refusals.ts';
import type { CallbackKeys } from '../../domain/callbacks/callback-digests.ts';
import type { DeliveredCallback } from '../../domain/callbacks/deliver-to-wait.ts';

const OUTCOMES: Record<WebhookOutcome, InvokeOutcome> = {
  RESPONDED: InvokeOutcome.RESPONDED,
  SYNC_TIMEOUT: InvokeOutcome.SYNC_TIMEOUT,
  FLOW_ENDED: InvokeOutcome.FLOW_ENDED,
  INSTANT_RETURN: InvokeOutcome.INSTANT_RETURN,
};

const STATES: Record<ExecutionStateName, ExecutionState> = {
  running: ExecutionState.RUNNING,
  completed: ExecutionState.COMPLETED,
  failed: ExecutionState.FAILED,
};

export type WebhookServiceDeps = InvokeDirectDeps &
  GetAnswerDeps & { logger: Logger; metrics?: EngineMetrics; callbackKeys: CallbackKeys };

export function createWebhookService(deps: WebhookServiceDeps): ServiceImpl<typeof WebhookService> {
  return {
    async invoke(request, context) {
      const started = Date.now();
      const account = serviceAccountOf(context);
      const call = deps.metrics?.webhookCall();
      const where = { company: request.company, activity: request.activity.toLowerCase() };
      const execution = await invokeWebhook(deps, request, account, call).catch((error: unknown) => {
        call?.failed(error);
        logIfRefused(deps.logger, { ...where, caller: request.caller }, error, account.name);
        throw withRefusalReason(error, account);
      });
      return create(InvokeResponseSchema, startedAnswer(deps, 'webhook invoked', where, execution, started, call));
    },
    async invokeDirect(request, context) {
      const started = Date.now();
      const account = serviceAccountOf(context);
      const call = deps.metrics?.directCall();
      // Path text from an unauthenticated caller: bounded before it reaches a log line.
      const where = { company: request.company.slice(0, 200), activity: request.activity.toLowerCase().slice(0, 200) };
      const answer = await invokeDirect(deps, request, account, call).catch((error: unknown) => {
        call?.failed(error);
        if (error instanceof DirectRefusedError) {
          logRefusedCall(deps.logger, {
            reason: error.reason!,
            ...where,
            scheme: error.scheme,
            hint: error.hint,
            serviceAccount: account.name,
          });
        } else {
          logIfRefused(deps.logger, { ...where, caller: undefined }, error, account.name);
        }
        throw withRefusalReason(error, account);
      });
      if ('challenge' in answer) {
        deps.logger.info({ ...where, ms: Date.now() - started }, 'provider url_verification answered');
        call?.answered('url_verification');
        return create(InvokeDirectResponseSchema, {
          statusCode: 200,
          contentType: 'text/plain; charset=utf-8',
          body: answer.challenge,
        });
      }
      return create(
        InvokeDirectResponseSchema,
        startedAnswer(deps, 'provider webhook invoked', where, answer, started, call),
      );
    },
    async getAnswer(request, context) {
      const started = Date.now();
      const account = serviceAccountOf(context);
      // The execution id is logged only once its shape is checked; the answer body never is.
      const execution = await getAnswer(deps, request, account, context.signal).catch((error: unknown) => {
        if (error instanceof AnswerNotFoundError)
          deps.logger.info(
            { company: request.company, executionId: request.executionId, reason: error.reason },
            'answer not found',
          );
        else logIfRefused(deps.logger, { company: request.company, caller: request.caller }, error, account.name);
        throw withRefusalReason(error, account);
      });
      const { answer } = execution;
      const handed = answerToHand(execution);
      deps.logger.info(
        {
          company: request.company,
          executionId: execution.executionId,
          state: execution.state,
          answered: handed !== undefined,
          waitSeconds: request.waitSeconds,
          ms: Date.now() - started,
        },
        'answer fetched',
      );
      return create(GetAnswerResponseSchema, {
        executionId: execution.executionId,
        state: STATES[execution.state],
        answered: handed !== undefined,
        statusCode: handed?.response.statusCode ?? 0,
        contentType: handed?.response.contentType ?? '',
        body: handed?.response.body ?? '',
        defaultResponse: handed?.isDefault ?? false,
        answeredAfterTimeout: answer.answeredAfterTimeout,
        outcome: answer.outcome ? OUTCOMES[answer.outcome] : InvokeOutcome.UNSPECIFIED,
      });
    },
    async deliverCallback(request, context) {
      const started = Date.now();
      const account = serviceAccountOf(context);
      const delivered = await deliverCallback(deps, request, account).catch((error: unknown) => {
        callbackFailed(deps, 'url', error);
        logIfRefused(deps.logger, { company: '', caller: undefined }, error, account.name);
        throw withRefusalReason(error, account);
      });
      callbackDelivered(deps, 'url', delivered, started);
      return create(DeliverCallbackResponseSchema, { statusCode: delivered.statusCode, repeated: delivered.repeated });
    },
    async resumeCallback(request, context) {
      const started = Date.now();
      const account = serviceAccountOf(context);
      const where = { company: request.company, activity: request.activity.toLowerCase() };
      const delivered = await resumeCallback(deps, request, account).catch((error: unknown) => {
        callbackFailed(deps, 'key', error, where);
        logIfRefused(deps.logger, { ...where, caller: request.caller }, error, account.name);
        throw withRefusalReason(error, account);
      });
      callbackDelivered(deps, 'key', delivered, started, where);
      return create(ResumeCallbackResponseSchema, {
        statusCode: delivered.statusCode,
        executionId: delivered.executionId,
        repeated: delivered.repeated,
      });
    },
    async checkCaller(request, context) {
      const account = serviceAccountOf(context);
      // Credentials only: the activity is in the body the facade has not read yet.
      await authenticateCaller(deps.callers, deps.orm.em.fork(), request.caller, new Date(), account).catch(
        (error: unknown) => {
          logIfRefused(deps.logger, { company: request.company, caller: request.caller }, error, account.name);
          throw withRefusalReason(error, account);
        },
      );
      return {};
    },
  };
}

function callbackDelivered(
  deps: WebhookServiceDeps,
  route: CallbackRoute,
  delivered: DeliveredCallback,
  started: number,
  where?: { company: string; activity: string },
): void {
  deps.logger.info(
    {
      route,
      ...where,
      executionId: delivered.executionId,
      step: delivered.step,
      status: delivered.statusCode,
      repeated: delivered.repeated || undefined,
      ms: Date.now() - started,
    },
    'callback delivered',
  );
  deps.metrics?.callback(route, delivered.repeated ? 'repeated' : 'accepted');
}

/** A refusal of the callback itself (not found, used, malformed) is one info line with its reason; credentials are logged as any call's. */
function callbackFailed(
  deps: WebhookServiceDeps,
  route: CallbackRoute,
  error: unknown,
  where?: { company: string; activity: string },
): void {
  deps.metrics?.callbackFailed(route, error);
  const refusal = refusalOf(error);
  if (refusal) deps.logger.info({ route, ...where, ...refusal }, 'callback refused');
}

/** Only errors that carry a reason are refusals of the caller; anything else is logged (or not) where it is mapped. */
function logIfRefused(
  logger: Logger,
  call: { company: string; activity?: string; caller: Caller | undefined },
  error: unknown,
  serviceAccount: string,
): void {
  if (!(error instanceof UnauthenticatedError || error instanceof PermissionDeniedError) || !error.reason) return;
  logRefusedCall(logger, {
    reason: error.reason,
    company: call.company,
    activity: call.activity,
    ...claimedCaller(call.caller),
    permissionSet: error instanceof PermissionDeniedError ? error.permissionSet : undefined,
    serviceAccount,
  });
}

/**
 * A call that joined an execution by its idempotency key says so in its log line — and, for a key
 * the flow derives from the payload, that its body differs from the first call's (it joined all the
 * same: the key is the flow's statement of identity). Never the body itself.
 */
function joinedFields(execution: { joined?: boolean; bodyDiffers?: boolean }) {
  return { ...(execution.joined && { joined: true }), ...(execution.bodyDiffers && { bodyDiffers: true }) };
}

/** A started (or joined) execution's answer, after the call's one log line and its metrics. */
function startedAnswer(
  deps: WebhookServiceDeps,
  message: string,
  where: { company: string; activity: string },
  execution: StartedExecution,
  started: number,
  call: { answered(outcome: WebhookOutcome): void } | undefined,
) {
  deps.logger.info(
    {
      ...where,
      executionId: execution.executionId,
      outcome: execution.outcome,
      ...joinedFields(execution),
      ms: Date.now() - started,
    },
    message,
  );
  call?.answered(execution.outcome);
  return answerFields(execution);
}

/** The answer both doors hand back (buf's lint wants one response message per RPC, so the fields are shared here). */
function answerFields(execution: StartedExecution) {
  return {
    statusCode: execution.statusCode,
    contentType: execution.contentType,
    body: execution.body,
    executionId: execution.executionId,
    defaultResponse: execution.defaultResponse,
    outcome: OUTCOMES[execution.outcome],
  };
}
