// Standard Webhooks (Svix and every implementer of the spec): headers
// `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, a
// space-separated list of `v1,<base64 HMAC-SHA256>` and `v1a,<base64 Ed25519>`
// signatures, all over `{webhook-id}.{webhook-timestamp}.{raw body}`. Several
// signatures appear while the sender rotates its key; one match is enough,
// unknown versions are skipped (the spec's forward compatibility). A `whsec_`
// secret checks the v1 entries, a `whpk_` one the v1a entries. The event id is
// `webhook-id` (signed, and kept on retries); the spec forbids a `.` in it,
// so that id and timestamp cannot be shifted against each other.
import { verify as verifySignature, type KeyObject } from 'node:crypto';
import type { StandardWebhooksVerification } from '../../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { hmacDigest } from './hmac-digest.ts';
import { headerValue, isEventId } from './request-fields.ts';
import { anySecretSigned, decodeDigest, MAX_SIGNATURES_PER_HEADER, secretsInOrder } from './signature-compare.ts';
import { timestampRefusal } from './signed-timestamp.ts';
import { publicKey, standardWebhooksSecretProblem, symmetricKey } from './standard-webhooks-keys.ts';
import { accept, bySignedId, refuse, type VerificationScheme, type HookSecrets } from './verification-types.ts';

const ID_HEADER = 'webhook-id';
const TIMESTAMP_HEADER = 'webhook-timestamp';
const SIGNATURE_HEADER = 'webhook-signature';
const HMAC_BYTES = 32;
const ED25519_SIGNATURE_BYTES = 64;

export const standardWebhooksScheme: VerificationScheme<StandardWebhooksVerification> = {
  documentation: {
    signatureHeaders:
      '`webhook-signature`: `v1,<base64>` and/or `v1a,<base64>`, space-separated; with `webhook-id` and `webhook-timestamp`',
    signedContent: '`{webhook-id}.{webhook-timestamp}.{body}`',
    secret: "`whsec_…` (HMAC-SHA256) or the sender's `whpk_…` public key (Ed25519)",
    eventId: '`webhook-id` (signed)',
    deliveryKey: '`webhook-id`',
  },
  withheldHeaders: () => [SIGNATURE_HEADER, TIMESTAMP_HEADER],
  secretProblem: standardWebhooksSecretProblem,
  verify(_config, { secrets, request, toleranceSeconds }) {
    const id = headerValue(request.headers, ID_HEADER);
    const timestamp = headerValue(request.headers, TIMESTAMP_HEADER);
    const header = headerValue(request.headers, SIGNATURE_HEADER);
    if (id === undefined || timestamp === undefined || header === undefined) return refuse('missing_header');
    if (!isEventId(id) || id.includes('.')) return refuse('malformed_header');
    const signatures = parseSignatureList(header);
    if (signatures === undefined) return refuse('malformed_header');
    const stale = timestampRefusal(timestamp, request.nowMs, toleranceSeconds);
    if (stale) return refuse(stale);
    const signedPrefix = `${id}.${timestamp}.`;
    const signed =
      anySecretSigned(secrets, (secret) => hmacUnder(secret, signedPrefix, request.body), signatures.v1) ||
      anyPublicKeySigned(secrets, signedPrefix, request.body, signatures.v1a);
    return signed ? accept(id, bySignedId(id, true)) : refuse('signature_mismatch');
  },
};

function hmacUnder(secret: string, signedPrefix: string, body: Uint8Array): Buffer | undefined {
  const key = symmetricKey(secret);
  return key === undefined ? undefined : hmacDigest('sha256', key, [signedPrefix, body]);
}

/** Ed25519 takes its message whole, so the signed content is built once, and only when a v1a signature and a whpk_ key meet. */
function anyPublicKeySigned(
  secrets: HookSecrets,
  signedPrefix: string,
  body: Uint8Array,
  signatures: readonly Buffer[],
): boolean {
  if (signatures.length === 0) return false;
  const keys = secretsInOrder(secrets)
    .map(publicKey)
    .filter((key): key is KeyObject => key !== undefined);
  if (keys.length === 0) return false;
  const message = Buffer.concat([Buffer.from(signedPrefix, 'utf8'), body]);
  return keys.some((key) => signatures.some((signature) => ed25519Verifies(message, key, signature)));
}

function ed25519Verifies(message: Buffer, key: KeyObject, signature: Buffer): boolean {
  try {
    return verifySignature(null, message, key, signature);
  } catch {
    return false;
  }
}

/**
 * The v1 and v1a signatures of the header, decoded, or undefined when an entry
 * is no `version,signature` pair, a known version's signature does not decode,
 * or there are too many. A trailing comma is dropped from an entry because a
 * repeated header reaches us joined with ', '.
 */
function parseSignatureList(header: string): { v1: Buffer[]; v1a: Buffer[] } | undefined {
  const v1: Buffer[] = [];
  const v1a: Buffer[] = [];
  let entries = 0;
  for (const rawEntry of header.split(' ')) {
    if (rawEntry.length === 0) continue;
    if (++entries > MAX_SIGNATURES_PER_HEADER) return undefined;
    const entry = rawEntry.endsWith(',') ? rawEntry.slice(0, -1) : rawEntry;
    const comma = entry.indexOf(',');
    if (comma <= 0) return undefined;
    const version = entry.slice(0, comma);
    const value = entry.slice(comma + 1);
    if (version === 'v1' || version === 'v1a') {
      const signature = decodeDigest(value, 'base64', version === 'v1' ? HMAC_BYTES : ED25519_SIGNATURE_BYTES);
      if (signature === undefined) return undefined;
      (version === 'v1' ? v1 : v1a).push(signature);
    }
  }
  return entries > 0 ? { v1, v1a } : undefined;
}
