// Signature verification of the provider route (POST …/hooks/{company}/{activity}):
// pure functions over the raw request, no I/O, no logging, nothing cached
// between calls. Every comparison is constant-time over equal lengths, every
// malformed header is a refusal value (never an exception), and no returned
// value contains a secret or a computed signature.
//
// Per scheme — what is signed, and where the event id (Trigger.Provider.EventId)
// comes from. A verified request also names its delivery key (verification-types.ts):
// the event id only where the signature covers it (standardWebhooks, stripe's and
// slack's body ids, hmac with {id}), otherwise the signed content itself, so an
// unsigned id header (github, shopify, hmac without {id}) can never make a
// captured delivery look new.
//   standardWebhooks  HMAC-SHA256 (v1, `whsec_` base64 key) or Ed25519 (v1a, `whpk_`
//                     public key) over `{webhook-id}.{webhook-timestamp}.{body}`;
//                     `webhook-signature` lists several.     Event id: `webhook-id`.
//   stripe            HMAC-SHA256 hex (each `v1=` of `Stripe-Signature`) over
//                     `{t}.{body}`, key = the `whsec_…` text. Event id: body `id` (evt_…).
//   github            `X-Hub-Signature-256: sha256=` hex HMAC-SHA256 of the body.
//                     Event id: `X-GitHub-Delivery`.
//   slack             `X-Slack-Signature: v0=` hex HMAC-SHA256 over
//                     `v0:{X-Slack-Request-Timestamp}:{body}`. Event id: body `event_id` (Events API), else none.
//   shopify           `X-Shopify-Hmac-Sha256`: base64 HMAC-SHA256 of the body.
//                     Event id: `X-Shopify-Webhook-Id`, else `X-Shopify-Event-Id`.
//   hmac              as described: header, sha1/sha256/sha512, hex/base64, prefix,
//                     template of {body}/{timestamp}/{id}. Event id: `eventIdHeader`.
// Signed timestamps (standardWebhooks, stripe, slack, hmac with {timestamp}) must
// be within `toleranceSeconds` (default DEFAULT_TOLERANCE_SECONDS) of `nowMs`,
// in both directions. Checks run cheapest first: missing header, malformed
// header, stale timestamp, then the signature under the current and the previous secret.
import type { DirectRoute } from '../../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { schemeNamed, schemeOfRoute } from './scheme-registry.ts';
import { slackChallengeOf } from './slack-scheme.ts';
import { toleranceOf } from './signed-timestamp.ts';
import type { DirectRequest, DirectSchemeName, HookSecrets, Refused, Verified } from './verification-types.ts';
import { CREDENTIAL_HEADERS } from '../../../../flow/withheld-headers.ts';

export type {
  DeliveryKey,
  DirectRefusal,
  DirectRequest,
  DirectSchemeName,
  HookSecrets,
  Refused,
  Verified,
} from './verification-types.ts';
export { DEFAULT_TOLERANCE_SECONDS, MAX_TOLERANCE_SECONDS, MIN_TOLERANCE_SECONDS } from './signed-timestamp.ts';
export { DIRECT_SCHEME_NAMES } from './scheme-registry.ts';
export { hmacConfigProblem } from './hmac-scheme.ts';
export { MAX_EVENT_ID_LENGTH } from './request-fields.ts';

/**
 * Whether the request proves it comes from the provider. Throws only for a
 * route publish validation refuses (no scheme, an invalid hmac description).
 */
export function verifyDirectRequest(
  route: DirectRoute,
  secrets: HookSecrets,
  request: DirectRequest,
): Verified | Refused {
  const { name, scheme, config } = schemeOfRoute(route);
  const outcome = scheme.verify(config, { secrets, request, toleranceSeconds: toleranceOf(route) });
  return outcome.ok ? { ...outcome, scheme: name } : { ok: false, scheme: name, reason: outcome.reason };
}

/** Header names the flow never sees (signature, timestamp, auth, cookie), lower-cased. Throws for a route without a scheme. */
export function withheldHeaders(route: DirectRoute): ReadonlySet<string> {
  const { scheme, config } = schemeOfRoute(route);
  // Credentials, whatever the scheme, and the scheme's own signature and timestamp headers.
  return new Set([...CREDENTIAL_HEADERS, ...scheme.withheldHeaders(config)]);
}

/** Slack's url_verification: the challenge to answer, when the verified body is one. */
export function slackChallenge(route: DirectRoute, body: Uint8Array): string | undefined {
  return route.verify?.scheme.case === 'slack' ? slackChallengeOf(body) : undefined;
}

/** Throws for a route without a scheme (publish validation refuses one). */
export function schemeOf(route: DirectRoute): DirectSchemeName {
  return schemeOfRoute(route).name;
}

/** Why `secret` cannot verify this scheme's requests (e.g. a Stripe API key where the `whsec_` secret belongs), for `hook-secret set`. */
export function hookSecretProblem(scheme: DirectSchemeName, secret: string): string | undefined {
  return schemeNamed(scheme).secretProblem(secret);
}
