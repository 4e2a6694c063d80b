// An Idempotency-Key makes the execution id deterministic for (company,
// caller, activity, key), so a retried call joins the first execution instead
// of starting a second one; the payload's digest tells a retry from a reuse
// of the key. Both are HMAC-SHA256 under a key only the engines hold
// (security/deployment-keys.ts), never plain hashes: ids and update ids are in
// clear history, and an unsalted payload hash there would let anyone who reads
// it confirm a guessed payload — also for doNotLogPayload flows.
import { createHmac } from 'node:crypto';
import type { DeliveryKey } from '../direct/verification/index.ts';

export function idempotentExecutionId(
  key: Buffer,
  parts: { company: string; caller: string; activity: string; key: string },
): string {
  const digest = createHmac('sha256', key)
    .update(JSON.stringify([parts.company, parts.caller, parts.activity, parts.key]))
    .digest('hex');
  return `${parts.activity}:key-${digest.slice(0, 40)}`;
}

/** Hex HMAC of the payload text, compared byte for byte when the key comes again. */
export function payloadDigest(key: Buffer, payloadJson: string): string {
  return createHmac('sha256', key).update(payloadJson, 'utf8').digest('hex');
}

/**
 * The idempotency key of a verified provider delivery: its signed event id, or — where the scheme
 * signs none — `signed content <hex HMAC>` of exactly the bytes the signature covers, so a replay
 * with an unsigned id header changed or dropped gets the first delivery's execution id. The space
 * keeps the two kinds apart (no event id contains one: verification's isEventId).
 */
export function deliveryIdempotencyKey(key: Buffer, delivery: DeliveryKey): string {
  if ('signedEventId' in delivery) return delivery.signedEventId;
  const hmac = createHmac('sha256', key).update('signed content\n');
  for (const part of delivery.signedContent) hmac.update(part);
  return `signed content ${hmac.digest('hex')}`;
}
