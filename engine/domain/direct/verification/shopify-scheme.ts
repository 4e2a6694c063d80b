// Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the raw body>`,
// keyed by the app's client secret (UTF-8). Shopify's newer Events deliveries
// send the same headers without the `X-` prefix; both are read. No signed
// timestamp (`X-Shopify-Triggered-At` is unsigned, so useless against
// replays) and no signed id: the webhook id header, which a retry keeps, is
// only the flow's event id, and the delivery is known by its signed body.
import type { ShopifyVerification } from '../../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { hmacDigest } from './hmac-digest.ts';
import { eventIdFromHeaders, headerValue } from './request-fields.ts';
import { plainSecretProblem } from './secret-formats.ts';
import { anySecretSigned, decodeDigest } from './signature-compare.ts';
import { accept, bySignedContent, refuse, type VerificationScheme } from './verification-types.ts';

const SIGNATURE_HEADERS = ['x-shopify-hmac-sha256', 'shopify-hmac-sha256'] as const;
/** Shopify documents the webhook id as the idempotency key; the event id is shared by every subscription to one event. */
const EVENT_ID_HEADERS = [
  'x-shopify-webhook-id',
  'shopify-webhook-id',
  'x-shopify-event-id',
  'shopify-event-id',
] as const;

export const shopifyScheme: VerificationScheme<ShopifyVerification> = {
  documentation: {
    signatureHeaders: '`X-Shopify-Hmac-Sha256: <base64>` (also without `X-`)',
    signedContent: '`{body}`',
    secret: "the app's client secret",
    eventId: '`X-Shopify-Webhook-Id`, else `X-Shopify-Event-Id` (unsigned)',
    deliveryKey: 'the body',
  },
  withheldHeaders: () => SIGNATURE_HEADERS,
  secretProblem: plainSecretProblem,
  verify(_config, { secrets, request }) {
    const header =
      headerValue(request.headers, SIGNATURE_HEADERS[0]) ?? headerValue(request.headers, SIGNATURE_HEADERS[1]);
    if (header === undefined) return refuse('missing_header');
    const received = decodeDigest(header, 'base64', 32);
    if (received === undefined) return refuse('malformed_header');
    const signed = anySecretSigned(secrets, (secret) => hmacDigest('sha256', secret, [request.body]), [received]);
    return signed
      ? accept(eventIdFromHeaders(request.headers, EVENT_ID_HEADERS), bySignedContent([request.body], false))
      : refuse('signature_mismatch');
  },
};
