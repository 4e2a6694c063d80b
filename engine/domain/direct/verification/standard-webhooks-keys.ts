// Standard Webhooks secrets as the spec serializes them: `whsec_<base64>` is a
// symmetric HMAC key (v1); `whpk_<base64 of the 32-byte Ed25519 public key>`
// verifies asymmetric v1a signatures; `whsk_` is the sender's private key and
// never belongs here. A bare base64 key is read like `whsec_` (as the
// `standardwebhooks` library does). Parsed per call: nothing is kept globally.
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { isBase64Text } from './signature-compare.ts';

const SYMMETRIC_PREFIX = 'whsec_';
const PUBLIC_KEY_PREFIX = 'whpk_';
const PRIVATE_KEY_PREFIX = 'whsk_';
const ED25519_PUBLIC_KEY_BYTES = 32;

/**
 * The HMAC key of a `whsec_` (or bare base64) secret; undefined for a key of
 * another kind or an unreadable one. A KeyObject, not the Buffer: Node's
 * createHmac is several times slower with a Buffer key than with a KeyObject.
 */
export function symmetricKey(secret: string): KeyObject | undefined {
  if (secret.startsWith(PUBLIC_KEY_PREFIX) || secret.startsWith(PRIVATE_KEY_PREFIX)) return undefined;
  const text = secret.startsWith(SYMMETRIC_PREFIX) ? secret.slice(SYMMETRIC_PREFIX.length) : secret;
  if (!isBase64Text(text)) return undefined;
  const key = Buffer.from(text, 'base64');
  return key.length > 0 ? createSecretKey(key) : undefined;
}

/** The Ed25519 public key of a `whpk_` secret; undefined for any other secret. */
export function publicKey(secret: string): KeyObject | undefined {
  if (!secret.startsWith(PUBLIC_KEY_PREFIX)) return undefined;
  const text = secret.slice(PUBLIC_KEY_PREFIX.length);
  if (!isBase64Text(text)) return undefined;
  const raw = Buffer.from(text, 'base64');
  if (raw.length !== ED25519_PUBLIC_KEY_BYTES) return undefined;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  } catch {
    return undefined;
  }
}

export function standardWebhooksSecretProblem(secret: string): string | undefined {
  if (secret.startsWith(PRIVATE_KEY_PREFIX))
    return "whsk_ is the sender's private key: set its whpk_ public key instead";
  if (secret.startsWith(PUBLIC_KEY_PREFIX))
    return publicKey(secret) ? undefined : 'a whpk_ key is the base64 of a 32-byte Ed25519 public key';
  if (!secret.startsWith(SYMMETRIC_PREFIX))
    return 'a Standard Webhooks secret starts with whsec_ (HMAC) or whpk_ (Ed25519 public key)';
  return symmetricKey(secret) ? undefined : 'a whsec_ secret is whsec_ followed by base64';
}
