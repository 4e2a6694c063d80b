// Why a delivery ended as it did, for the delivery log. A 401 or 403 carries the
// refusal reason of whoever decided it (common/refusal-reasons.ts): the facade's
// own (CallerRefusedError), or the engine's, which travels back as Connect
// error metadata (REFUSAL_REASON_METADATA). Any other failure gets a code from
// the closed table below, by the status answered — the reference of delivery
// reasons is this table:
//
//   400 bad_request            malformed body, missing company, parameter out of range
//   404 not_found              no such instance, route, flow, execution or callback
//   405 method_not_allowed     anything but the route's method
//   409 conflict               the call cannot go ahead now (a used callback URL, an invalid trigger)
//   413 payload_too_large      a body over FLOWHOOK_MAX_BODY_BYTES, or a call larger than its window allows
//   415 unsupported_media_type a body that is not JSON on the OData routes
//   422 idempotency_conflict   an Idempotency-Key reused with another payload
//   429 rate_limited           a rate limit or the sync-call cap
//   500 internal_error         the flow failed before it responded, or an unexpected error
//   501 not_implemented        an HTTP method no route knows
//   503 unavailable            the engine, Temporal or PostgreSQL unreachable
//   499 client_closed          the caller closed the connection before its answer was written (nginx's 499)
//   other 4xx client_error, other 5xx server_error; 401 without a known reason unauthorized, 403 forbidden.
import { Code, ConnectError } from '@connectrpc/connect';
import { REFUSAL_REASONS } from '../common/refusal-reasons.ts';
import { REFUSAL_REASON_METADATA } from '../common/rpc-metadata.ts';
import { CallerRefusedError } from './caller-credentials.ts';

/** Recorded for a request whose caller left before the answer: no status was sent (nginx's convention). */
export const CLIENT_CLOSED_STATUS = 499;

export const STATUS_REASONS: ReadonlyMap<number, string> = new Map([
  [400, 'bad_request'],
  [401, 'unauthorized'],
  [403, 'forbidden'],
  [404, 'not_found'],
  [405, 'method_not_allowed'],
  [409, 'conflict'],
  [413, 'payload_too_large'],
  [415, 'unsupported_media_type'],
  [422, 'idempotency_conflict'],
  [429, 'rate_limited'],
  [500, 'internal_error'],
  [501, 'not_implemented'],
  [503, 'unavailable'],
  [CLIENT_CLOSED_STATUS, 'client_closed'],
]);

export type DeliveryOutcome = 'accepted' | 'refused' | 'failed';

/** The refusal reason an error carries, if it is a refusal whose decider named one. */
export function refusalReasonOf(error: unknown): string | undefined {
  if (error instanceof CallerRefusedError) return error.refusal.reason;
  if (error instanceof ConnectError && (error.code === Code.Unauthenticated || error.code === Code.PermissionDenied)) {
    const reason = error.metadata.get(REFUSAL_REASON_METADATA) ?? '';
    // Only the closed set: the metadata is the engine's, but a reason is a label the console filters by.
    if (Object.hasOwn(REFUSAL_REASONS, reason)) return reason;
  }
  return undefined;
}

/**
 * Accepted when no error was answered; refused when the call was turned away (a 4xx: credentials,
 * secret, signature, a bad request, a rate limit — what `calls-refused` alerts count); failed when
 * flowhook could not answer it (a 5xx) or the caller hung up first (499).
 */
export function deliveryOutcome(failed: boolean, status: number): DeliveryOutcome {
  if (!failed) return 'accepted';
  return status >= 400 && status < 500 && status !== CLIENT_CLOSED_STATUS ? 'refused' : 'failed';
}

/** The reason stored: none when accepted, the refusal's own for 401/403, else the status's code. */
export function deliveryReason(outcome: DeliveryOutcome, status: number, refusal: string | undefined): string {
  if (outcome === 'accepted') return '';
  if (outcome === 'refused' && refusal) return refusal;
  return STATUS_REASONS.get(status) ?? (status >= 500 ? 'server_error' : 'client_error');
}
