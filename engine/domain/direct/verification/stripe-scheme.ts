// Stripe: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=…]`,
// each v1 an HMAC-SHA256 over `{t}.{raw body}` keyed by the whole endpoint
// secret `whsec_…` as UTF-8 text (Stripe does not decode it). Several v1
// during Stripe's own secret roll; v0 (legacy test signatures) and unknown
// keys are ignored, as Stripe's library does. Unlike that library the window
// is symmetric (a future t is refused too). The event id is the verified
// body's `id` (evt_…), which a redelivery keeps; a body without one is known
// by what was signed, `{t}.{body}`.
import type { StripeVerification } from '../../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { hmacDigest } from './hmac-digest.ts';
import { eventIdFromJson, headerValue } from './request-fields.ts';
import { plainSecretProblem } from './secret-formats.ts';
import { anySecretSigned, decodeDigest, MAX_SIGNATURES_PER_HEADER } from './signature-compare.ts';
import { timestampRefusal } from './signed-timestamp.ts';
import { accept, bySignedContent, bySignedId, refuse, type VerificationScheme } from './verification-types.ts';

const SIGNATURE_HEADER = 'stripe-signature';

export const stripeScheme: VerificationScheme<StripeVerification> = {
  documentation: {
    signatureHeaders: '`Stripe-Signature: t=…,v1=<hex>[,v1=…]`',
    signedContent: '`{t}.{body}`',
    secret: "the endpoint's signing secret `whsec_…`, used as text",
    eventId: "the body's `id` (`evt_…`, signed)",
    deliveryKey: "the body's `id`; without one, `{t}.{body}`",
  },
  withheldHeaders: () => [SIGNATURE_HEADER],
  secretProblem: (secret) =>
    plainSecretProblem(secret) ??
    (secret.startsWith('whsec_')
      ? undefined
      : 'a Stripe signing secret starts with whsec_ (the endpoint secret, not an API key)'),
  verify(_config, { secrets, request, toleranceSeconds }) {
    const header = headerValue(request.headers, SIGNATURE_HEADER);
    if (header === undefined) return refuse('missing_header');
    const parsed = parseStripeSignature(header);
    if (parsed === undefined) return refuse('malformed_header');
    const stale = timestampRefusal(parsed.timestamp, request.nowMs, toleranceSeconds);
    if (stale) return refuse(stale);
    const signedPrefix = `${parsed.timestamp}.`;
    const signed = anySecretSigned(
      secrets,
      (secret) => hmacDigest('sha256', secret, [signedPrefix, request.body]),
      parsed.signatures,
    );
    if (!signed) return refuse('signature_mismatch');
    const id = eventIdFromJson(request.body, 'id');
    return accept(id, id === undefined ? bySignedContent([signedPrefix, request.body], true) : bySignedId(id, true));
  },
};

/**
 * `t` (exactly once) and the decoded v1 signatures (at least one), or
 * undefined. Items are trimmed because a repeated header reaches us joined
 * with ', '; an item without `key=` or an undecodable v1 makes the header malformed.
 */
function parseStripeSignature(header: string): { timestamp: string; signatures: Buffer[] } | undefined {
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  for (const rawItem of header.split(',')) {
    const item = rawItem.trim();
    const equals = item.indexOf('=');
    if (equals <= 0) return undefined;
    const key = item.slice(0, equals);
    const value = item.slice(equals + 1);
    if (key === 't') {
      if (timestamp !== undefined) return undefined;
      timestamp = value;
    } else if (key === 'v1') {
      const signature = decodeDigest(value, 'hex', 32);
      if (signature === undefined || signatures.length === MAX_SIGNATURES_PER_HEADER) return undefined;
      signatures.push(signature);
    }
  }
  return timestamp !== undefined && signatures.length > 0 ? { timestamp, signatures } : undefined;
}
