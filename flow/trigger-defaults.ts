// The defaults of a webhook trigger (Instant return, sync timeout 30 s, default
// response 200 application/json), applied in one place.
import type { WebhookTriggerJson } from '../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { DefaultResponse, ResponseMode } from './flow-contract.ts';

export const DEFAULT_SYNC_TIMEOUT_SECONDS = 30;
/** A caller held longer than this is better served by Instant return. */
export const MAX_SYNC_TIMEOUT_SECONDS = 600;

export interface ResolvedTrigger {
  activity: string;
  description: string;
  responseMode: ResponseMode;
  syncTimeoutSeconds: number;
  defaultResponse: DefaultResponse;
  doNotLogPayload: boolean;
}

export function resolveTrigger(webhook: WebhookTriggerJson): ResolvedTrigger {
  return {
    activity: (webhook.activity ?? '').toLowerCase(),
    description: webhook.description ?? '',
    responseMode: webhook.responseMode === 'WAIT_FOR_RESPONSE_STEP' ? 'WAIT_FOR_RESPONSE_STEP' : 'INSTANT_RETURN',
    syncTimeoutSeconds: webhook.syncTimeoutSeconds ?? DEFAULT_SYNC_TIMEOUT_SECONDS,
    defaultResponse: {
      statusCode: webhook.defaultResponseStatusCode ?? 200,
      contentType: webhook.defaultResponseContentType ?? 'application/json',
    },
    doNotLogPayload: webhook.doNotLogPayload ?? false,
  };
}
