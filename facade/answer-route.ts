// GET /{instance}/ODataV4/flowWebhook_Answer(executionId='…')?company=…[&wait=N]:
// the answer of an execution after its call — for a sync call that got the
// default response because its window timed out, the respond step's answer
// once the flow reaches it (engine WebhookService.GetAnswer decides who may
// see it). Statuses (docs/how-to/call-the-endpoint.md, "Get the answer after a timeout"):
//   200  the OData envelope of the POST with the answer in `value`
//   202  still running and nothing answered yet (ask again, or wait longer)
//   500  the flow failed before it answered (as the POST would have said)
//   404  no such execution of yours in this company (never more than that)
import type { RouterMiddleware } from '@koa/router';
import type { GetAnswerResponse } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { ExecutionState } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { WebhookClient } from './engine-client.ts';
import type { FacadeState } from './facade-context.ts';
import { BadRequestError, FacadeHttpError } from './http-errors.ts';
import { EXECUTION_ID_HEADER, headerSafe, OUTCOMES, OUTCOME_HEADER } from './invoke-route.ts';
import { ODATA_JSON_CONTENT_TYPE, ODATA_VERSION, webhookEnvelope, type EnvelopeTarget } from './odata-envelope.ts';

/** Where the execution stands: running, completed or failed. */
export const EXECUTION_STATE_HEADER = 'x-flowhook-execution-state';
/** Whose answer `value` holds: respond-step, late-respond-step (after the window timed out) or default-response. */
export const ANSWER_SOURCE_HEADER = 'x-flowhook-answer-source';
/** The engine's bound on a long-poll (engine/domain/webhook/answer-access.ts). */
export const MAX_WAIT_SECONDS = 60;
/** A client asking again after a 202 without waiting should not spin. */
const RETRY_AFTER_SECONDS = '1';

const STATES: ReadonlyMap<ExecutionState, string> = new Map([
  [ExecutionState.RUNNING, 'running'],
  [ExecutionState.COMPLETED, 'completed'],
  [ExecutionState.FAILED, 'failed'],
]);

/**
 * The function's one parameter in OData literal syntax, as the route captured it (decoded):
 * `executionId='…'` with a quote inside doubled.
 */
export function parseExecutionIdParameter(text: string): string {
  const match = /^executionId='((?:[^']|'')*)'$/.exec(text);
  if (!match)
    throw new BadRequestError(
      "the function takes one parameter: flowWebhook_Answer(executionId='<x-flowhook-execution-id of the call>')",
    );
  return match[1]!.replaceAll("''", "'");
}

/** `wait`: whole seconds 0..60, at most once; absent means answer at once. */
export function parseWait(raw: string | string[] | undefined): number {
  if (raw === undefined) return 0;
  if (Array.isArray(raw) || !/^\d{1,2}$/.test(raw) || Number(raw) > MAX_WAIT_SECONDS) {
    throw new BadRequestError(`wait must be given once, as whole seconds between 0 and ${MAX_WAIT_SECONDS}`);
  }
  return Number(raw);
}

type AnswerMiddleware = RouterMiddleware<FacadeState>;

export function fetchAnswer(deps: {
  target: EnvelopeTarget;
  webhookClient: Pick<WebhookClient, 'getAnswer'>;
}): AnswerMiddleware {
  return async function answer(ctx) {
    const executionId = parseExecutionIdParameter(ctx.params.key ?? '');
    const waitSeconds = parseWait(ctx.query.wait);
    const response = await deps.webhookClient.getAnswer(
      {
        company: ctx.state.company ?? '',
        executionId,
        caller: ctx.state.caller,
        waitSeconds,
        requestId: ctx.state.requestId,
      },
      // The engine ends a long-poll itself; this only keeps a lost engine from holding the request.
      { timeoutMs: (waitSeconds + 15) * 1000 },
    );
    ctx.state.executionId = response.executionId;
    ctx.set(EXECUTION_ID_HEADER, headerSafe(response.executionId));
    ctx.set(EXECUTION_STATE_HEADER, STATES.get(response.state) ?? 'unknown');
    const outcome = OUTCOMES.get(response.outcome);
    if (outcome) ctx.set(OUTCOME_HEADER, outcome);
    ctx.set('OData-Version', ODATA_VERSION);
    if (response.answered) return answered(ctx, deps.target, response);
    if (response.state === ExecutionState.FAILED) {
      throw new FacadeHttpError(
        500,
        'InternalServerError',
        `The flow failed before it responded (execution ${response.executionId})`,
      );
    }
    ctx.status = 202;
    ctx.set('Retry-After', RETRY_AFTER_SECONDS);
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = JSON.stringify({ executionId: response.executionId, state: 'running' });
  };
}

function answered(ctx: Parameters<AnswerMiddleware>[0], target: EnvelopeTarget, response: GetAnswerResponse): void {
  ctx.status = 200;
  ctx.set(
    ANSWER_SOURCE_HEADER,
    response.defaultResponse
      ? 'default-response'
      : response.answeredAfterTimeout
        ? 'late-respond-step'
        : 'respond-step',
  );
  // Set before the body, so Koa keeps this exact type instead of guessing one.
  ctx.set('Content-Type', ODATA_JSON_CONTENT_TYPE);
  ctx.body = webhookEnvelope(target, {
    statusCode: response.statusCode,
    contentType: response.contentType,
    body: response.body,
  });
}
