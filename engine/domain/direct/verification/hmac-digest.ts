// One HMAC over signed content given as parts, so the body is fed to the hash
// as received: no concatenated copy of a body that may be megabytes long.
import { createHmac, type KeyObject } from 'node:crypto';
import type { HMAC_ALGORITHMS } from '../../../../flow/verification-schemes/hmac.ts';

/** The closed set publish validation allows (flow/verification-schemes/hmac.ts). */
export type HmacAlgorithm = (typeof HMAC_ALGORITHMS)[number];

/** Digest length in bytes per algorithm: the length a received signature must decode to. */
export const HMAC_DIGEST_BYTES: Readonly<Record<HmacAlgorithm, number>> = Object.freeze({
  sha1: 20,
  sha256: 32,
  sha512: 64,
});

/** A string part is hashed as UTF-8, a byte part as is. A string key is its UTF-8 bytes; byte keys come as a KeyObject (see standard-webhooks-keys.ts). */
export function hmacDigest(
  algorithm: HmacAlgorithm,
  key: string | KeyObject,
  parts: readonly (string | Uint8Array)[],
): Buffer {
  const hmac = createHmac(algorithm, key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}
