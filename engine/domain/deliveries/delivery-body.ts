// A stored delivery's request — the payload text or provider bytes, and the
// provider route's query string — sealed like connection secrets
// (secret-store/envelope-encryption.ts): its own data key, wrapped under the
// keyring's current key, and bound to the row's id, so a body copied to
// another row does not open.
import { decryptSecret, encryptSecret } from '../../infrastructure/secret-store/envelope-encryption.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';

export interface StoredRequest {
  body: Uint8Array;
  query: string;
}

function context(deliveryId: string): string {
  return `delivery:${deliveryId}`;
}

export function sealRequest(keyring: SecretKeyring, deliveryId: string, request: StoredRequest): Buffer {
  const plain = JSON.stringify({ body: Buffer.from(request.body).toString('base64'), query: request.query });
  return Buffer.from(encryptSecret(keyring, plain, context(deliveryId)), 'utf8');
}

export function openRequest(keyring: SecretKeyring, deliveryId: string, sealed: Uint8Array): StoredRequest {
  const plain = JSON.parse(decryptSecret(keyring, Buffer.from(sealed).toString('utf8'), context(deliveryId))) as {
    body: string;
    query: string;
  };
  return { body: Buffer.from(plain.body, 'base64'), query: plain.query };
}
