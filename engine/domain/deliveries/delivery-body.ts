// A stored delivery's request — the payload text or provider bytes, and the
// provider route's query string — sealed like connection secrets
// (secret-store/envelope-encryption.ts): its own data key, wrapped under the
// keyring's current key, and bound to the row's id, so a body copied to
// another row does not open. The row keeps the wrapping key's id beside it
// (`key_id`): `secret-store rotate` (secret-store/key-rotation.ts) re-wraps the
// bodies under older keys in place, the binding to the row untouched.
import { decryptSecret, encryptSecret, envelopeKeyId } from '../../infrastructure/secret-store/envelope-encryption.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';

export interface StoredRequest {
  body: Uint8Array;
  query: string;
}

function context(deliveryId: string): string {
  return `delivery:${deliveryId}`;
}

export interface SealedRequest {
  /** The envelope, as the `body` column's bytes. */
  body: Buffer;
  /** The key its data key is wrapped under: the `key_id` column. */
  keyId: string;
}

export function sealRequest(keyring: SecretKeyring, deliveryId: string, request: StoredRequest): SealedRequest {
  const plain = JSON.stringify({ body: Buffer.from(request.body).toString('base64'), query: request.query });
  const envelope = encryptSecret(keyring, plain, context(deliveryId));
  return { body: Buffer.from(envelope, 'utf8'), keyId: envelopeKeyId(envelope) };
}

export function openRequest(keyring: SecretKeyring, deliveryId: string, sealed: Uint8Array): StoredRequest {
  const plain = JSON.parse(decryptSecret(keyring, Buffer.from(sealed).toString('utf8'), context(deliveryId))) as {
    body: string;
    query: string;
  };
  return { body: Buffer.from(plain.body, 'base64'), query: plain.query };
}
