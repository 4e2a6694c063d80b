// WebhookService.ResumeCallback: resumes the waitForCallback step that waits
// for a correlation key (a step with `key` instead of a URL). The call is
// authenticated exactly as Invoke (webhook/flow-call-authorization.ts: caller,
// the flow's secret, the permission set) and then delivered like a callback
// to the step's URL, with the payload as the body.
import type { ResumeCallbackRequest } from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../common/json-depth.ts';
import { InvalidArgumentError } from '../../errors.ts';
import type { ServiceAccountIdentity } from '../callers/service-account-tokens.ts';
import { authorizeFlowCall, type FlowCallDeps } from '../webhook/flow-call-authorization.ts';
import { keyLookup } from './callback-digests.ts';
import { CallbackNotFoundError, NO_EXECUTION_WAITS_FOR_KEY } from './callback-refusals.ts';
import { findWait } from './callback-waits.ts';
import { deliverToWait, type CallbackDeliveryDeps, type DeliveredCallback } from './deliver-to-wait.ts';

export type ResumeCallbackDeps = CallbackDeliveryDeps & FlowCallDeps;

/** What the step sees as the resume's request headers: the payload is JSON. */
const RESUME_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

export async function resumeCallback(
  deps: ResumeCallbackDeps,
  request: ResumeCallbackRequest,
  account: ServiceAccountIdentity,
): Promise<DeliveredCallback> {
  const body = checkShape(request);
  const em = deps.orm.em.fork();
  const { published, trigger } = await authorizeFlowCall(deps, em, request, account);
  const lookup = keyLookup(deps.callbackKeys.lookup, {
    company: published.company.name,
    activity: trigger.activity,
    key: request.key,
  });
  const wait = await findWait(em, lookup);
  if (!wait) throw new CallbackNotFoundError(NO_EXECUTION_WAITS_FOR_KEY, { reason: 'unknown_key' });
  // A used key still answers (the same payload again, or 409) after it expired: only a wait nobody answered ends with its timeout.
  if (!wait.usedAt && wait.expiresAt != null && wait.expiresAt <= new Date()) {
    throw new CallbackNotFoundError(NO_EXECUTION_WAITS_FOR_KEY, {
      reason: 'key_expired',
      executionId: wait.executionId,
      step: wait.step,
    });
  }
  return deliverToWait(deps, wait, { route: 'key', body, headers: { ...RESUME_HEADERS } });
}

/** The payload text the step receives: any JSON value, `{}` when none was sent. */
function checkShape(request: ResumeCallbackRequest): string {
  if (!request.company) throw new InvalidArgumentError('company is required');
  if (!request.activity) throw new InvalidArgumentError('activity is required');
  if (!request.secret) throw new InvalidArgumentError('secret is required');
  if (!request.key) throw new InvalidArgumentError('key is required');
  const payload = request.payloadJson === '' ? '{}' : request.payloadJson;
  try {
    JSON.parse(payload);
  } catch {
    throw new InvalidArgumentError('payload must be JSON text');
  }
  if (nestsDeeperThan(payload, MAX_JSON_DEPTH))
    throw new InvalidArgumentError(`payload nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
  return payload;
}
