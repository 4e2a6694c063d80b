// Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256>` over
// `v0:{X-Slack-Request-Timestamp}:{raw body}`, keyed by the app's signing
// secret (UTF-8), with the timestamp inside the replay window. Events API
// bodies carry `event_id` (kept on Slack's retries); slash commands and
// interactivity post forms without one, so those have no event id and are
// known by what was signed, `v0:{timestamp}:{body}`.
import type { SlackVerification } from '../../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { hmacDigest } from './hmac-digest.ts';
import { eventIdFromJson, headerValue, jsonObjectBody, stringMember } from './request-fields.ts';
import { plainSecretProblem } from './secret-formats.ts';
import { anySecretSigned, decodeDigest } from './signature-compare.ts';
import { timestampRefusal } from './signed-timestamp.ts';
import { accept, bySignedContent, bySignedId, refuse, type VerificationScheme } from './verification-types.ts';

const SIGNATURE_HEADER = 'x-slack-signature';
const TIMESTAMP_HEADER = 'x-slack-request-timestamp';
const VERSION = 'v0';

export const slackScheme: VerificationScheme<SlackVerification> = {
  documentation: {
    signatureHeaders: '`X-Slack-Signature: v0=<hex>` with `X-Slack-Request-Timestamp`',
    signedContent: '`v0:{timestamp}:{body}`',
    secret: "the app's Signing Secret",
    eventId: "the body's `event_id` (Events API, signed); form posts have none",
    deliveryKey: '`event_id`; without one, `v0:{timestamp}:{body}`',
  },
  withheldHeaders: () => [SIGNATURE_HEADER, TIMESTAMP_HEADER],
  secretProblem: plainSecretProblem,
  verify(_config, { secrets, request, toleranceSeconds }) {
    const header = headerValue(request.headers, SIGNATURE_HEADER);
    const timestamp = headerValue(request.headers, TIMESTAMP_HEADER);
    if (header === undefined || timestamp === undefined) return refuse('missing_header');
    if (!header.startsWith(`${VERSION}=`)) return refuse('malformed_header');
    const received = decodeDigest(header.slice(VERSION.length + 1), 'hex', 32);
    if (received === undefined) return refuse('malformed_header');
    const stale = timestampRefusal(timestamp, request.nowMs, toleranceSeconds);
    if (stale) return refuse(stale);
    const baseString = `${VERSION}:${timestamp}:`;
    const signed = anySecretSigned(secrets, (secret) => hmacDigest('sha256', secret, [baseString, request.body]), [
      received,
    ]);
    if (!signed) return refuse('signature_mismatch');
    const id = eventIdFromJson(request.body, 'event_id');
    return accept(id, id === undefined ? bySignedContent([baseString, request.body], true) : bySignedId(id, true));
  },
};

/**
 * The `challenge` of Slack's `url_verification` body, which Slack sends (signed)
 * when an Events API URL is saved and expects echoed back; undefined for any
 * other body. Call it only on a body that verified.
 */
export function slackChallengeOf(body: Uint8Array): string | undefined {
  const object = jsonObjectBody(body);
  return stringMember(object, 'type') === 'url_verification' ? stringMember(object, 'challenge') : undefined;
}
