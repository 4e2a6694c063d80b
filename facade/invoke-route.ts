// POST /{instance}/ODataV4/flowWebhook_Invoke: the one webhook endpoint
// (flows are told apart by `activity`, not by path). By the time `invoke` runs, the instance, caller, company and body
// have been checked by the middlewares before it; it asks the engine and wraps
// the flow's answer in the OData envelope.
import type { InvokeResponse } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { InvokeOutcome } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { exceedsNameLimit, nameLimitRule } from '../common/name-limits.ts';
import type { WebhookClient } from './engine-client.ts';
import type { FacadeContext, FacadeMiddleware } from './facade-context.ts';
import { BadRequestError } from './http-errors.ts';
import { ODATA_JSON_CONTENT_TYPE, ODATA_VERSION, webhookEnvelope, type EnvelopeTarget } from './odata-envelope.ts';
import { readWebhookRequest } from './webhook-request.ts';

export { EXECUTION_ID_HEADER, OUTCOME_HEADER } from '../common/webhook-answer-headers.ts';
import { EXECUTION_ID_HEADER, OUTCOME_HEADER } from '../common/webhook-answer-headers.ts';

export const OUTCOMES: ReadonlyMap<InvokeOutcome, string> = new Map([
  [InvokeOutcome.RESPONDED, 'responded'],
  [InvokeOutcome.SYNC_TIMEOUT, 'sync-timeout'],
  [InvokeOutcome.FLOW_ENDED, 'flow-ended'],
  [InvokeOutcome.INSTANT_RETURN, 'instant-return'],
]);

// The engine hashes the key, so any length works there; the bound only keeps
// a runaway header from travelling further.
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** `company` must be given once and not be empty. */
export function readCompanyParameter(): FacadeMiddleware {
  return async function readCompany(ctx, next) {
    const company = ctx.query.company;
    if (Array.isArray(company)) throw new BadRequestError('the company query parameter must be given once');
    if (!company) throw new BadRequestError('the company query parameter is required');
    // Before the caller's credentials are checked with the engine: a name no company can have goes no further.
    if (exceedsNameLimit('company', company))
      throw new BadRequestError(`the company query parameter is too long (${nameLimitRule('company')})`);
    ctx.state.company = company;
    await next();
  };
}

/** What every call the facade forwards names: the company, the authenticated caller, the request id. */
export function callOf(ctx: FacadeContext): {
  company: string;
  caller: FacadeContext['state']['caller'];
  requestId: FacadeContext['state']['requestId'];
} {
  return { company: ctx.state.company ?? '', caller: ctx.state.caller, requestId: ctx.state.requestId };
}

/** What a route that forwards a call needs: where the envelope points, and the engine method it calls. */
export type ForwardDeps<Method extends keyof WebhookClient> = {
  target: EnvelopeTarget;
  webhookClient: Pick<WebhookClient, Method>;
};

export function forwardWebhookCall(deps: ForwardDeps<'invoke'>): FacadeMiddleware {
  return async function invoke(ctx) {
    const request = readWebhookRequest(ctx.request.body, ctx.request.rawBody);
    ctx.state.payloadJson = request.payloadJson;
    const response = await deps.webhookClient.invoke({
      ...callOf(ctx),
      ...request,
      idempotencyKey: idempotencyKey(ctx),
    });
    respond(ctx, deps.target, response);
  };
}

function respond(ctx: FacadeContext, target: EnvelopeTarget, response: InvokeResponse): void {
  ctx.state.executionId = response.executionId;
  ctx.status = 200;
  if (response.executionId) ctx.set(EXECUTION_ID_HEADER, headerSafe(response.executionId));
  const outcome = OUTCOMES.get(response.outcome);
  if (outcome) ctx.set(OUTCOME_HEADER, outcome);
  ctx.set('OData-Version', ODATA_VERSION);
  // Set before the body, so Koa keeps this exact type instead of guessing one.
  ctx.set('Content-Type', ODATA_JSON_CONTENT_TYPE);
  ctx.body = webhookEnvelope(target, {
    statusCode: response.statusCode,
    contentType: response.contentType,
    body: response.body,
  });
}

/** `Idempotency-Key`, or the Standard Webhooks `webhook-id` that many senders set. */
function idempotencyKey(ctx: FacadeContext): string {
  const key = ctx.get('idempotency-key') || ctx.get('webhook-id');
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new BadRequestError(`the idempotency key must have at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  return key;
}

/** Execution ids are ASCII today; anything else is percent-encoded rather than breaking the response. */
export function headerSafe(value: string): string {
  return /^[\x21-\x7e]+$/.test(value) ? value : encodeURIComponent(value);
}
