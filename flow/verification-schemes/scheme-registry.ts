// The verification schemes of a provider route: one module per case of the
// proto's DirectVerification oneof. This list drives publish validation
// (flow/direct-route.ts), `hook-secret set` (engine/domain/flows/
// hook-secrets-validation.ts), the engine's scheme metric label and the
// verification scheme reference (docs/tooling/verification-schemes-reference.ts).
// Its type has a member per oneof case, so a new proto case does not compile
// until its module is listed here — nor until its verifier is listed in
// engine/domain/direct/verification/scheme-registry.ts. Listed in the proto's order.
import { githubFacts } from './github.ts';
import { hmacFacts } from './hmac.ts';
import type { DirectScheme, SchemeFacts, SchemeJson } from './scheme-facts.ts';
import { shopifyFacts } from './shopify.ts';
import { slackFacts } from './slack.ts';
import { standardWebhooksFacts } from './standard-webhooks.ts';
import { stripeFacts } from './stripe.ts';

export type { DirectScheme } from './scheme-facts.ts';

const SCHEMES: { readonly [Name in DirectScheme]: SchemeFacts<SchemeJson<Name>> } = {
  standardWebhooks: standardWebhooksFacts,
  stripe: stripeFacts,
  github: githubFacts,
  slack: slackFacts,
  shopify: shopifyFacts,
  hmac: hmacFacts,
};

export const DIRECT_SCHEMES = Object.freeze(SCHEMES);

export const DIRECT_SCHEME_NAMES: readonly DirectScheme[] = Object.freeze(
  Object.keys(DIRECT_SCHEMES) as DirectScheme[],
);

/** Whether the route's signature covers a timestamp (so its `toleranceSeconds` means something). */
export function hasSignedTimestamp<Name extends DirectScheme>(name: Name, config: SchemeJson<Name>): boolean {
  const scheme: SchemeFacts<SchemeJson<Name>> = DIRECT_SCHEMES[name];
  return scheme.signedTimestamp === 'when configured'
    ? scheme.hasSignedTimestamp(config)
    : scheme.signedTimestamp === 'always';
}
