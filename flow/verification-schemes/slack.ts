// Slack: `X-Slack-Request-Timestamp` is signed; the app's Signing Secret is
// Slack's. No settings of its own. Verified by
// engine/domain/direct/verification/slack-scheme.ts.
import type { SchemeFacts, SchemeJson } from './scheme-facts.ts';

export const slackFacts: SchemeFacts<SchemeJson<'slack'>> = {
  signedTimestamp: 'always',
  secretIssuedByProvider: true,
};
