// webhook: any HTTP endpoint (the base URL) that receives alert messages as
// JSON, each signed the Standard Webhooks way (webhook-id, webhook-timestamp,
// webhook-signature: v1 HMAC-SHA256 of `id.timestamp.body`) with the secret,
// a `whsec_` followed by base64 of 24 to 64 random bytes.
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { notForRequests } from './alert-channel.ts';
import type { ConnectionKind } from './connection-kind.ts';

const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** The key bytes of a `whsec_…` secret; undefined when it is not one. */
export function signingKeyOf(secret: string): Uint8Array | undefined {
  if (!SIGNING_SECRET.test(secret)) return undefined;
  let text: string;
  try {
    text = atob(secret.slice('whsec_'.length));
  } catch {
    return undefined;
  }
  const key = Uint8Array.from(text, (char) => char.charCodeAt(0));
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}

export const webhookKind: ConnectionKind<ConnectionType.WEBHOOK> = {
  type: ConnectionType.WEBHOOK,
  name: 'webhook',
  secretName: 'signing secret',
  purpose: 'alerts',
  usesBaseUrl: true,
  settings: [],
  checkSecret: (secret) =>
    signingKeyOf(secret)
      ? []
      : [
          'secret: a Standard Webhooks signing secret, whsec_ and base64 of 24 to 64 bytes (e.g. whsec_$(openssl rand -base64 32))',
        ],
  authenticate: notForRequests('webhook'),
};
