// WebhookService.DeliverCallback: a POST to `/{instance}/callbacks/{token}`.
// The token is the only credential, so everything that can be refused without
// it is refused first and alike: a token of the wrong shape is "not found" as
// an unknown one (a scanner learns nothing from the difference), and the body
// must be UTF-8 text (the step hands it to the flow as text).
import type { DeliverCallbackRequest } from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../common/json-depth.ts';
import { PermissionDeniedError } from '../../errors.ts';
import { actsForCompany, type ServiceAccountIdentity } from '../callers/service-account-tokens.ts';
import { Company } from '../../infrastructure/storage/entities.ts';
import { deliveredHeaders } from './callback-headers.ts';
import { tokenLookup } from './callback-digests.ts';
import { CallbackInvalidError, CallbackNotFoundError, NO_CALLBACK_AT_URL } from './callback-refusals.ts';
import { isCallbackTokenShape } from './callback-tokens.ts';
import { findWait } from './callback-waits.ts';
import { deliverToWait, type CallbackDeliveryDeps, type DeliveredCallback } from './deliver-to-wait.ts';
import type { WebhookLimits } from '../limits/webhook-limits.ts';

// fatal: bytes that are not UTF-8 are refused instead of becoming U+FFFD;
// ignoreBOM: a byte order mark stays in the text, so the text is the bytes exactly.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type DeliverCallbackDeps = CallbackDeliveryDeps & {
  limits: Pick<WebhookLimits, 'admitCallback' | 'chargeCallbackMiss'>;
};

export async function deliverCallback(
  deps: DeliverCallbackDeps,
  request: DeliverCallbackRequest,
  account: ServiceAccountIdentity,
): Promise<DeliveredCallback> {
  if (!isCallbackTokenShape(request.token))
    throw new CallbackNotFoundError(NO_CALLBACK_AT_URL, { reason: 'malformed_token' });
  // Malformed tokens cost nothing and take nothing; a well-formed one costs a lookup, unless its
  // sender has already guessed too often. A service calling the engine itself is its own sender.
  const sender = request.sender || `account:${account.name}`;
  deps.limits.admitCallback(sender);
  const body = callbackBodyText(request.body);
  const em = deps.orm.em.fork();
  const wait = await findWait(em, tokenLookup(request.token));
  if (!wait) {
    deps.limits.chargeCallbackMiss(sender);
    throw new CallbackNotFoundError(NO_CALLBACK_AT_URL, { reason: 'unknown_token' });
  }
  // As on the provider route: the account's companies are checked once the request proved itself.
  if (!account.allCompanies) {
    const company = await em.findOne(Company, { name: wait.company }, { fields: ['id'] });
    if (!company || !actsForCompany(account, company.id)) {
      throw new PermissionDeniedError(
        `Service account "${account.name}" may not deliver callbacks of company "${wait.company}"`,
        { reason: 'service_account_company' },
      );
    }
  }
  return deliverToWait(deps, wait, { route: 'url', body, headers: deliveredHeaders(request.headers) });
}

/**
 * The body as the step receives it: exact UTF-8 text. A JSON body nested deeper than the trigger
 * allows is refused as there: the flow parses JSON bodies (Steps.<name>.json) and walks them.
 */
export function callbackBodyText(body: Uint8Array): string {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new CallbackInvalidError('callback bodies must be UTF-8 text', { reason: 'body_not_utf8' });
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH) && isJson(text)) {
    throw new CallbackInvalidError(`the body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`, {
      reason: 'body_too_deep',
    });
  }
  return text;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
