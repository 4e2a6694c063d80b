// Shopify: the signature covers the body only (no timestamp); the app's client
// secret is Shopify's. No settings of its own. Verified by
// engine/domain/direct/verification/shopify-scheme.ts.
import type { SchemeFacts, SchemeJson } from './scheme-facts.ts';

export const shopifyFacts: SchemeFacts<SchemeJson<'shopify'>> = {
  signedTimestamp: 'never',
  secretIssuedByProvider: true,
};
