// Stripe: `t=` of `Stripe-Signature` is signed; the endpoint's signing secret is
// Stripe's. No settings of its own. Verified by
// engine/domain/direct/verification/stripe-scheme.ts.
import type { SchemeFacts, SchemeJson } from './scheme-facts.ts';

export const stripeFacts: SchemeFacts<SchemeJson<'stripe'>> = {
  signedTimestamp: 'always',
  secretIssuedByProvider: true,
};
