// Standard Webhooks (Svix and every implementer of the spec): `webhook-timestamp`
// is signed, and the secret is the sender's `whsec_…` (or its `whpk_…` public
// key), which `hook-secret set --generate` can make. No settings of its own.
// Verified by engine/domain/direct/verification/standard-webhooks-scheme.ts.
import type { SchemeFacts, SchemeJson } from './scheme-facts.ts';

export const standardWebhooksFacts: SchemeFacts<SchemeJson<'standardWebhooks'>> = {
  signedTimestamp: 'always',
  secretIssuedByProvider: false,
};
