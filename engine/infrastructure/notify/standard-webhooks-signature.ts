// Standard Webhooks (standardwebhooks.com) signing: the headers webhook-id,
// webhook-timestamp (Unix seconds) and webhook-signature, `v1,` and the
// base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` under the secret's key bytes
// (the base64 after `whsec_`). The id stays the same for a message sent again,
// so a receiver recognises a repeat.
import { createHmac } from 'node:crypto';

export function standardWebhooksHeaders(
  key: Uint8Array,
  message: { id: string; timestampSeconds: number; body: string },
): Record<string, string> {
  const signed = `${message.id}.${message.timestampSeconds}.${message.body}`;
  const signature = createHmac('sha256', key).update(signed).digest('base64');
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
