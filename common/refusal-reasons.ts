// Why a webhook call was refused (401/403): the closed set of reason codes and
// the one log line that carries them. The caller only ever sees `Unauthorized`
// (or the 403 naming the set); operators read the reason in the log. Each
// refused call is logged exactly once, by the process that decided it: the
// facade for what it refuses before asking the engine, the engine for the rest
// (the facade does not log the engine's 401/403 again).
import type { Logger } from 'pino';

/**
 * Every reason code with the status the caller sees. Adding a refusal means adding its code here,
 * with what it means and (`@remedy`) what an operator does about it: the refusal reference
 * (docs/reference/refusal-reasons.md) is generated from these comments.
 */
export const REFUSAL_REASONS = {
  // ── decided by the facade, before the engine is asked ──
  /**
   * No Authorization header (or an empty one).
   * @remedy send `Authorization: Bearer …` or `Authorization: Basic …`
   */
  missing_credentials: 401,
  /**
   * A scheme this facade does not accept, e.g. Bearer when no OAuth issuer is configured.
   * @remedy configure OAuth (`FLOWHOOK_OAUTH_ISSUERS`), or send Basic
   */
  unsupported_scheme: 401,
  /**
   * An Authorization value that cannot be read: Basic not base64 `user:key` (or a user name longer than any can be, 250 characters), a Bearer value that is no JWT.
   * @remedy fix the client's Authorization header
   */
  malformed_credentials: 401,
  /**
   * The token's `iss` is missing or not one of FLOWHOOK_OAUTH_ISSUERS.
   * @remedy add that exact issuer (logged as `issuer`) to `FLOWHOOK_OAUTH_ISSUERS`; Entra ID v1 tokens name `https://sts.windows.net/<tenant>/`, v2 tokens `https://login.microsoftonline.com/<tenant>/v2.0`
   */
  token_issuer_untrusted: 401,
  /**
   * The signature does not verify with the issuer's key (forged or altered token).
   * @remedy a forged or altered token, or one of another tenant or issuer
   */
  token_signature_invalid: 401,
  /**
   * No key in the issuer's key set matches the token (`kid`/`alg`).
   * @remedy a token of another tenant or issuer, or keys the identity provider rolled since the facade fetched them
   */
  token_key_unknown: 401,
  /**
   * An algorithm outside the allow-list (`none`, HMAC, …).
   * @remedy use an RS-, PS- or ES-signed access token
   */
  token_algorithm_refused: 401,
  /**
   * `exp` passed, beyond the clock tolerance.
   * @remedy get a fresh token; check the clocks
   */
  token_expired: 401,
  /**
   * `iat` older than FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS (or missing while that limit is on), though `exp` has not passed.
   * @remedy get a fresh token; shorten the identity provider's token lifetime, or raise `FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS`
   */
  token_too_old: 401,
  /**
   * `nbf` still in the future, beyond the clock tolerance.
   * @remedy check the clocks of the identity provider and the facade
   */
  token_not_yet_valid: 401,
  /**
   * `aud` missing or none of FLOWHOOK_OAUTH_AUDIENCE (or the issuer's audiences).
   * @remedy request the token for the flowhook API resource, or add its audience to `FLOWHOOK_OAUTH_AUDIENCE`
   */
  token_audience_mismatch: 401,
  /**
   * Anything else wrong with a signed token: no `exp`, a claim of the wrong type, claims that are no JSON object.
   * @remedy fix the identity provider's token settings
   */
  token_invalid: 401,
  /**
   * A token issued to or about a user — delegated, or an OIDC id token — not an app-only client-credentials access token; `tokenRule` names the rule (facade/oauth/token-kind.ts).
   * @remedy use the client-credentials grant: an app-only access token
   */
  token_delegated: 401,
  /**
   * No client id in `azp`, `appid` or `client_id`.
   * @remedy fix the identity provider's token settings (a client id in `azp`, `appid` or `client_id`)
   */
  token_client_id_missing: 401,
  // ── decided by the engine ──
  /**
   * The RPC came without a service account token (a facade or internal caller started without FLOWHOOK_ENGINE_TOKEN).
   * @remedy give the process its service account token: `FLOWHOOK_ENGINE_TOKEN` or `FLOWHOOK_ENGINE_TOKEN_FILE`
   */
  service_token_missing: 401,
  /**
   * The RPC came with a token no service account has (never issued, rotated, or the account deleted).
   * @remedy `flowhook service-account list`; `flowhook service-account rotate <name>` and give the process the new token
   */
  service_token_invalid: 401,
  /**
   * The service account's token is right, but the account is disabled.
   * @remedy `flowhook service-account enable <name>`
   */
  service_account_disabled: 401,
  /**
   * The service account's scope is not the one this service needs (e.g. a records token on WebhookService).
   * @remedy use an account of the scope the message names (`invoke` for WebhookService)
   */
  service_account_scope: 403,
  /**
   * The invoke account may not call for this company (it was created for others).
   * @remedy `flowhook service-account create <name> --scope invoke --company <company>` (or `--all-companies`)
   */
  service_account_company: 403,
  /**
   * The request names an end-user caller (Basic, OAuth application), but only the facade's account may pass one on.
   * @remedy call without `caller`: the execution records `account:<name>`
   */
  caller_forwarding_refused: 403,
  /**
   * Basic: no service user with that name.
   * @remedy `flowhook user list`; `flowhook user create <name> --company <company>`
   */
  unknown_user: 401,
  /**
   * Basic: the access key is not the user's current one.
   * @remedy send the current key, or `flowhook user rotate-key <name>`
   */
  bad_key: 401,
  /**
   * Basic: right key, but the user is disabled.
   * @remedy `flowhook user enable <name>`
   */
  user_disabled: 401,
  /**
   * Basic: right key, but it is past its expiry.
   * @remedy `flowhook user rotate-key <name> --expires-at <iso>` (or `--no-expiry`)
   */
  key_expired: 401,
  /**
   * Bearer: a valid token for a client id that is not registered in flowhook.
   * @remedy `flowhook app register <clientId> --issuer <iss> --company <company> --permission-set "FLOW INTEGR." --consent --enabled`
   */
  unknown_app: 401,
  /**
   * Bearer: the client id is registered without an issuer (before issuers were bound): `flowhook app register <clientId> --issuer <url>`.
   * @remedy `flowhook app register <clientId> --issuer <iss>` (keeps its consent, state and permission sets)
   */
  app_issuer_unset: 401,
  /**
   * Bearer: the client id is registered, but under another issuer than the token's (`issuer`): the same client id from another issuer is another application.
   * @remedy register it under that issuer: `flowhook app register <clientId> --issuer <iss>`
   */
  app_issuer_mismatch: 401,
  /**
   * Bearer: the application is registered for a tenant, and the token's `tid` is another (or none).
   * @remedy `flowhook app register <clientId> --issuer <iss> --tenant <tid>` (or `--any-tenant`)
   */
  app_tenant_mismatch: 401,
  /**
   * Bearer: the application is registered without consent.
   * @remedy `flowhook app register <clientId> --issuer <iss> --consent`
   */
  app_not_consented: 401,
  /**
   * Bearer: the application's State is Disabled.
   * @remedy `flowhook app enable <clientId>`
   */
  app_disabled: 401,
  /**
   * The caller is who it says, but holds no permission set in the company named (nor one for all companies): answered like an unknown company or activity, before any lookup.
   * @remedy `flowhook user grant <name> --company <company> --permission-set "FLOW ALL"`; for an application `flowhook app register <clientId> --issuer <iss> --company <company> --permission-set "FLOW INTEGR."`
   */
  no_grant_in_company: 401,
  /**
   * The caller is who it says, but the flow's secret is wrong.
   * @remedy send the flow's current secret, or `flowhook secret rotate <company> <activity>`
   */
  secret_mismatch: 401,
  /**
   * Right secret, but the caller lacks the permission set for the company (the 403 names it).
   * @remedy `flowhook user grant <name> --company <company> --permission-set "FLOW ALL"`; for an application `flowhook app register <clientId> --issuer <iss> --company <company> --permission-set "FLOW INTEGR."`
   */
  missing_permission_set: 403,
  // ── the provider route (POST /{instance}/hooks/{company}/{activity}), decided by the engine ──
  /**
   * The flow has a direct route but no signing secret is set: `flowhook hook-secret set <company> <activity>`.
   * @remedy `flowhook hook-secret set <company> <activity>` (the secret on stdin); the log line's `hint` is the command
   */
  hook_secret_missing: 401,
  /**
   * The scheme's signature (or timestamp) header is absent.
   * @remedy point the provider at the right activity, or fix the flow's `verify` scheme
   */
  missing_signature_header: 401,
  /**
   * The signature or timestamp header is there but cannot be read (no `t=`, not hex/base64, no number).
   * @remedy compare the provider's header with the scheme's format (docs/reference/verification-schemes.md)
   */
  malformed_signature_header: 401,
  /**
   * The signed timestamp is further from the engine's clock than the route's tolerance (default 300 s).
   * @remedy check the clocks (NTP); a replayed old request is refused on purpose
   */
  stale_timestamp: 401,
  /**
   * No signature in the header matches the body under the route's secret(s): a wrong secret or an altered body.
   * @remedy set the provider's current secret: `flowhook hook-secret set <company> <activity>` (`--overlap 24h` while rotating); a proxy that rewrites bodies breaks signatures
   */
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
