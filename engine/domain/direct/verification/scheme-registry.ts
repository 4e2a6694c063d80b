// The one list of verification schemes. A new scheme is a module with its
// rules, withheld headers and secret check, plus one line here; the proto's
// oneof case names are the scheme names.
import type { DirectRoute, DirectVerification } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { githubScheme } from './github-scheme.ts';
import { hmacScheme } from './hmac-scheme.ts';
import { shopifyScheme } from './shopify-scheme.ts';
import { slackScheme } from './slack-scheme.ts';
import { standardWebhooksScheme } from './standard-webhooks-scheme.ts';
import { stripeScheme } from './stripe-scheme.ts';
import type { VerificationScheme, DirectSchemeName } from './verification-types.ts';

type SchemeCase = Exclude<DirectVerification['scheme']['case'], undefined>;
type ConfigOf<Name extends SchemeCase> = Extract<DirectVerification['scheme'], { case: Name }>['value'];

const SCHEMES: { readonly [Name in SchemeCase]: VerificationScheme<ConfigOf<Name>> } = {
  standardWebhooks: standardWebhooksScheme,
  stripe: stripeScheme,
  github: githubScheme,
  slack: slackScheme,
  shopify: shopifyScheme,
  hmac: hmacScheme,
};

export const DIRECT_SCHEME_NAMES: readonly DirectSchemeName[] = Object.keys(SCHEMES) as DirectSchemeName[];

/** The route's scheme module with its configuration. Throws for a route without a scheme, which publish validation refuses. */
export function schemeOfRoute(route: DirectRoute): { scheme: VerificationScheme<unknown>; config: unknown } {
  const selected = route.verify?.scheme;
  if (selected?.case === undefined) throw new Error('direct route without a verification scheme');
  // The oneof pairs each case with its own configuration type; TypeScript cannot follow that pairing through an index.
  return { scheme: SCHEMES[selected.case] as VerificationScheme<unknown>, config: selected.value };
}

export function schemeNamed(name: DirectSchemeName): VerificationScheme<unknown> {
  return SCHEMES[name] as VerificationScheme<unknown>;
}
