// POST /{instance}/ODataV4/flowWebhook_Resume?company=…: resumes the
// waitForCallback step that waits for a correlation key (a step with `key`).
// The caller is authenticated as for flowWebhook_Invoke — the same middlewares
// before this one, and the engine checks caller, the flow's secret and the
// permission set exactly as for a call — and the answer is the step's status
// with a small OData body naming the execution it resumed.
import type { ResumeCallbackResponse } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { CALLBACK_REPEATED_HEADER } from './callbacks-route.ts';
import type { FacadeContext, FacadeMiddleware } from './facade-context.ts';
import { callOf, EXECUTION_ID_HEADER, headerSafe, type ForwardDeps } from './invoke-route.ts';
import { metadataUrl, ODATA_JSON_CONTENT_TYPE, ODATA_VERSION, type EnvelopeTarget } from './odata-envelope.ts';
import { RESUME_RESULT_TYPE } from './odata-metadata.ts';
import { readResumeRequest } from './resume-request.ts';

export function forwardResumeCall(deps: ForwardDeps<'resumeCallback'>): FacadeMiddleware {
  return async function resume(ctx) {
    const request = readResumeRequest(ctx.request.body, ctx.request.rawBody);
    const response = await deps.webhookClient.resumeCallback({ ...callOf(ctx), ...request });
    respond(ctx, deps.target, response);
  };
}

/** The resume's answer body: what OData calls a complex value, with its context. */
export function resumeAnswer(target: EnvelopeTarget, executionId: string): string {
  return JSON.stringify({
    '@odata.context': `${metadataUrl(target)}#${RESUME_RESULT_TYPE}`,
    received: true,
    executionId,
  });
}

function respond(ctx: FacadeContext, target: EnvelopeTarget, response: ResumeCallbackResponse): void {
  ctx.state.executionId = response.executionId;
  ctx.status = response.statusCode;
  if (response.executionId) ctx.set(EXECUTION_ID_HEADER, headerSafe(response.executionId));
  if (response.repeated) ctx.set(CALLBACK_REPEATED_HEADER, 'true');
  ctx.set('OData-Version', ODATA_VERSION);
  // Set before the body, so Koa keeps this exact type instead of guessing one.
  ctx.set('Content-Type', ODATA_JSON_CONTENT_TYPE);
  ctx.body = resumeAnswer(target, response.executionId);
}
