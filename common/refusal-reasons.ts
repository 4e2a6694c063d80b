// Why a webhook call was refused (401/403): the closed set of reason codes and
// the one log line that carries them. The caller only ever sees `Unauthorized`
// (or the 403 naming the set); operators read the reason in the log. Each
// refused call is logged exactly once, by the process that decided it: the
// facade for what it refuses before asking the engine, the engine for the rest
// (the facade does not log the engine's 401/403 again).
import type { Logger } from 'pino';

/** Every reason code with the status the caller sees. Adding a refusal means adding its code here. */
export const REFUSAL_REASONS = {
  // ── decided by the facade, before the engine is asked ──
  /** No Authorization header (or an empty one). */
  missing_credentials: 401,
  /** A scheme this facade does not accept, e.g. Bearer when no OAuth issuer is configured. */
  unsupported_scheme: 401,
  /** An Authorization value that cannot be read: Basic not base64 `user:key` (or a user name longer than any can be, 250 characters), a Bearer value that is no JWT. */
  malformed_credentials: 401,
  /** The token's `iss` is missing or not one of FLOWHOOK_OAUTH_ISSUERS. */
  token_issuer_untrusted: 401,
  /** The signature does not verify with the issuer's key (forged or altered token). */
  token_signature_invalid: 401,
  /** No key in the issuer's key set matches the token (`kid`/`alg`). */
  token_key_unknown: 401,
  /** An algorithm outside the allow-list (`none`, HMAC, …). */
  token_algorithm_refused: 401,
  /** `exp` passed, beyond the clock tolerance. */
  token_expired: 401,
  /** `iat` older than FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS (or missing while that limit is on), though `exp` has not passed. */
  token_too_old: 401,
  /** `nbf` still in the future, beyond the clock tolerance. */
  token_not_yet_valid: 401,
  /** `aud` missing or none of FLOWHOOK_OAUTH_AUDIENCE (or the issuer's audiences). */
  token_audience_mismatch: 401,
  /** Anything else wrong with a signed token: no `exp`, a claim of the wrong type, claims that are no JSON object. */
  token_invalid: 401,
  /** A token issued to or about a user — delegated, or an OIDC id token — not an app-only client-credentials access token; `tokenRule` names the rule (facade/oauth/token-kind.ts). */
  token_delegated: 401,
  /** No client id in `azp`, `appid` or `client_id`. */
  token_client_id_missing: 401,
  // ── decided by the engine ──
  /** The RPC came without a service account token (a facade or internal caller started without FLOWHOOK_ENGINE_TOKEN). */
  service_token_missing: 401,
  /** The RPC came with a token no service account has (never issued, rotated, or the account deleted). */
  service_token_invalid: 401,
  /** The service account's token is right, but the account is disabled. */
  service_account_disabled: 401,
  /** The service account's scope is not the one this service needs (e.g. a records token on WebhookService). */
  service_account_scope: 403,
  /** The invoke account may not call for this company (it was created for others). */
  service_account_company: 403,
  /** The request names an end-user caller (Basic, OAuth application), but only the facade's account may pass one on. */
  caller_forwarding_refused: 403,
  /** Basic: no service user with that name. */
  unknown_user: 401,
  /** Basic: the access key is not the user's current one. */
  bad_key: 401,
  /** Basic: right key, but the user is disabled. */
  user_disabled: 401,
  /** Basic: right key, but it is past its expiry. */
  key_expired: 401,
  /** Bearer: a valid token for a client id that is not registered in flowhook. */
  unknown_app: 401,
  /** Bearer: the client id is registered without an issuer (before issuers were bound): `flowhook app register <clientId> --issuer <url>`. */
  app_issuer_unset: 401,
  /** Bearer: the client id is registered, but under another issuer than the token's (`issuer`): the same client id from another issuer is another application. */
  app_issuer_mismatch: 401,
  /** Bearer: the application is registered for a tenant, and the token's `tid` is another (or none). */
  app_tenant_mismatch: 401,
  /** Bearer: the application is registered without consent. */
  app_not_consented: 401,
  /** Bearer: the application's State is Disabled. */
  app_disabled: 401,
  /** The caller is who it says, but holds no permission set in the company named (nor one for all companies): answered like an unknown company or activity, before any lookup. */
  no_grant_in_company: 401,
  /** The caller is who it says, but the flow's secret is wrong. */
  secret_mismatch: 401,
  /** Right secret, but the caller lacks the permission set for the company (the 403 names it). */
  missing_permission_set: 403,
  // ── the provider route (POST /{instance}/hooks/{company}/{activity}), decided by the engine ──
  /** The flow has a direct route but no signing secret is set: `flowhook hook-secret set <company> <activity>`. */
  hook_secret_missing: 401,
  /** The scheme's signature (or timestamp) header is absent. */
  missing_signature_header: 401,
  /** The signature or timestamp header is there but cannot be read (no `t=`, not hex/base64, no number). */
  malformed_signature_header: 401,
  /** The signed timestamp is further from the engine's clock than the route's tolerance (default 300 s). */
  stale_timestamp: 401,
  /** No signature in the header matches the body under the route's secret(s): a wrong secret or an altered body. */
  signature_mismatch: 401,
} as const satisfies Record<string, 401 | 403>;

export type RefusalReason = keyof typeof REFUSAL_REASONS;

export const REFUSED_CALL_MESSAGE = 'call refused';

/** What the log line says about a refused call: names only, never a key, token or secret. */
export interface RefusedCall {
  reason: RefusalReason;
  /** Only where the request scope (common/request-scope.ts) does not reach; otherwise the logger's mixin adds it. */
  requestId?: string;
  company?: string;
  /** Lower case, as activities are stored. */
  activity?: string;
  /** The Basic user name the caller sent. */
  user?: string;
  /** The application's client id, from a token whose signature verified. */
  clientId?: string;
  /** The issuer a token claimed, to tell a misconfigured issuer list (Entra v1 vs v2) from an attack. */
  issuer?: string;
  /** The permission set the caller lacks (missing_permission_set). */
  permissionSet?: string;
  /** Which rule found a user's token or an id token (token_delegated), e.g. `entra_scp`. */
  tokenRule?: string;
  /** The service account that made the RPC, once its token is known. */
  serviceAccount?: string;
  /** Provider route: the verification scheme of the flow (`stripe`, `github`, …). */
  scheme?: string;
  /** What the operator can do about it (a command), when the reason alone does not say. */
  hint?: string;
}

// Names and issuers come from unauthenticated callers: bounded so that a
// refused call cannot make the log line arbitrarily long.
const MAX_FIELD_LENGTH = 200;

/** The fields of the log line: unset ones left out, caller-supplied text bounded. */
export function refusedCallFields(call: RefusedCall): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(call)) {
    if (typeof value !== 'string' || value === '') continue;
    fields[name] = value.length > MAX_FIELD_LENGTH ? `${value.slice(0, MAX_FIELD_LENGTH)}…` : value;
  }
  return fields;
}

/** The one `call refused` line: at warn, so it shows at the default level. */
export function logRefusedCall(logger: Pick<Logger, 'warn'>, call: RefusedCall): void {
  logger.warn(refusedCallFields(call), REFUSED_CALL_MESSAGE);
}
