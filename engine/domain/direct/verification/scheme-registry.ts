// The one list of verifiers: how each scheme of the proto's DirectVerification
// oneof verifies a request, under its case name. A new scheme is its facts and
// publish checks in flow/verification-schemes/<scheme>.ts (listed in that
// folder's scheme-registry.ts) and its verifier here, a module with its rules,
// withheld headers and secret check, plus one line below. Both lists are typed
// by the oneof, so a scheme missing from either does not compile.
import type { DirectRoute, DirectVerification } from '../../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { githubScheme } from './github-scheme.ts';
import { hmacScheme } from './hmac-scheme.ts';
import { shopifyScheme } from './shopify-scheme.ts';
import { slackScheme } from './slack-scheme.ts';
import { standardWebhooksScheme } from './standard-webhooks-scheme.ts';
import { stripeScheme } from './stripe-scheme.ts';
import type { VerificationScheme, DirectSchemeName } from './verification-types.ts';

type ConfigOf<Name extends DirectSchemeName> = Extract<DirectVerification['scheme'], { case: Name }>['value'];

const SCHEMES: { readonly [Name in DirectSchemeName]: VerificationScheme<ConfigOf<Name>> } = {
  standardWebhooks: standardWebhooksScheme,
  stripe: stripeScheme,
  github: githubScheme,
  slack: slackScheme,
  shopify: shopifyScheme,
  hmac: hmacScheme,
};

export const DIRECT_SCHEME_NAMES: readonly DirectSchemeName[] = Object.keys(SCHEMES) as DirectSchemeName[];

/** The route's scheme, its verifier and its configuration. Throws for a route without a scheme, which publish validation refuses. */
export function schemeOfRoute(route: DirectRoute): {
  name: DirectSchemeName;
  scheme: VerificationScheme<unknown>;
  config: unknown;
} {
  const selected = route.verify?.scheme;
  if (selected?.case === undefined) throw new Error('direct route without a verification scheme');
  // The oneof pairs each case with its own configuration type; TypeScript cannot follow that pairing through an index.
  return { name: selected.case, scheme: SCHEMES[selected.case] as VerificationScheme<unknown>, config: selected.value };
}

export function schemeNamed(name: DirectSchemeName): VerificationScheme<unknown> {
  return SCHEMES[name] as VerificationScheme<unknown>;
}
