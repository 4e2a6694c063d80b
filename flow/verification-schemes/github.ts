// GitHub: the signature covers the body only (no timestamp); the webhook's secret
// is chosen by whoever sets the webhook up, so it may be generated here. No
// settings of its own. Verified by engine/domain/direct/verification/github-scheme.ts.
import type { SchemeFacts, SchemeJson } from './scheme-facts.ts';

export const githubFacts: SchemeFacts<SchemeJson<'github'>> = {
  signedTimestamp: 'never',
  secretIssuedByProvider: false,
};
