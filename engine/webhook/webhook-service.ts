// The WebhookService Connect implementation: a thin adapter from the RPC to
// invokeWebhook; errors become Connect codes in the engine's one interceptor.
// It writes the one line per call the engine decided: `webhook invoked`, or
// `call refused` with the reason for a 401/403 (the facade does not log those
// again). Both get the request id from the request scope (rpc/request-scope-interceptor.ts).
import type { StartedExecution } from '../temporal/execution-starter.ts';
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Logger } from 'pino';
import {
  ExecutionState,
  GetAnswerResponseSchema,
  InvokeDirectResponseSchema,
  InvokeOutcome,
  InvokeResponseSchema,
  type Caller,
  type WebhookService,
} from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { WebhookOutcome } from '../../workflows/shared/index.ts';
import { logRefusedCall } from '../../common/refusal-reasons.ts';
import { PermissionDeniedError, UnauthenticatedError } from '../errors.ts';
import { authenticateCaller, claimedCaller } from './caller-authentication.ts';
import { invokeWebhook } from './invoke-webhook.ts';
import { DirectRefusedError, invokeDirect, type InvokeDirectDeps } from './invoke-direct.ts';
import { serviceAccountOf } from '../rpc/service-account-gate.ts';
import type { EngineMetrics } from '../metrics/engine-metrics.ts';
import { AnswerNotFoundError, answerToHand, getAnswer, type ExecutionStateName, type GetAnswerDeps } from './get-answer.ts';

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

export function createWebhookService(deps: InvokeDirectDeps & GetAnswerDeps & { logger: Logger; metrics?: EngineMetrics }): ServiceImpl<typeof WebhookService> {
  return {
    async invoke(request, context) {
      const started = Date.now();
      const account = serviceAccountOf(context);
      const call = deps.metrics?.webhookCall();
      const execution = await invokeWebhook(deps, request, account, call).catch((error: unknown) => {
        call?.failed(error);
        logIfRefused(deps.logger, { company: request.company, activity: request.activity.toLowerCase(), caller: request.caller }, error, account.name);
        throw error;
      });
      deps.logger.info(
        { company: request.company, activity: request.activity.toLowerCase(), executionId: execution.executionId, outcome: execution.outcome, ms: Date.now() - started },
        'webhook invoked',
      );
      call?.answered(execution.outcome);
      return create(InvokeResponseSchema, answerFields(execution));
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
          logRefusedCall(deps.logger, { reason: error.reason!, ...where, scheme: error.scheme, hint: error.hint, serviceAccount: account.name });
        } else {
          logIfRefused(deps.logger, { ...where, caller: undefined }, error, account.name);
        }
        throw error;
      });
      if ('challenge' in answer) {
        deps.logger.info({ ...where, ms: Date.now() - started }, 'provider url_verification answered');
        call?.answered('url_verification');
        return create(InvokeDirectResponseSchema, { statusCode: 200, contentType: 'text/plain; charset=utf-8', body: answer.challenge });
      }
      deps.logger.info({ ...where, executionId: answer.executionId, outcome: answer.outcome, ms: Date.now() - started }, 'provider webhook invoked');
      call?.answered(answer.outcome);
      return create(InvokeDirectResponseSchema, answerFields(answer));
    },
    async getAnswer(request, context) {
      const started = Date.now();
      const account = serviceAccountOf(context);
      // The execution id is logged only once its shape is checked; the answer body never is.
      const execution = await getAnswer(deps, request, account, context.signal).catch((error: unknown) => {
        if (error instanceof AnswerNotFoundError) deps.logger.info({ company: request.company, executionId: request.executionId, reason: error.reason }, 'answer not found');
        else logIfRefused(deps.logger, { company: request.company, caller: request.caller }, error, account.name);
        throw error;
      });
      const { answer } = execution;
      const handed = answerToHand(execution);
      deps.logger.info(
        { company: request.company, executionId: execution.executionId, state: execution.state, answered: handed !== undefined, waitSeconds: request.waitSeconds, ms: Date.now() - started },
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
    async checkCaller(request, context) {
      const account = serviceAccountOf(context);
      // Credentials only: the activity is in the body the facade has not read yet.
      await authenticateCaller(deps.callers, deps.orm.em.fork(), request.caller, new Date(), account).catch((error: unknown) => {
        logIfRefused(deps.logger, { company: request.company, caller: request.caller }, error, account.name);
        throw error;
      });
      return {};
    },
  };
}

/** Only errors that carry a reason are refusals of the caller; anything else is logged (or not) where it is mapped. */
function logIfRefused(logger: Logger, call: { company: string; activity?: string; caller: Caller | undefined }, error: unknown, serviceAccount: string): void {
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
