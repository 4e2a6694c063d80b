// The shape of the OAuth 2.0 settings (trusted issuers for Bearer callers), read by config.ts from
// FLOWHOOK_OAUTH_* and used by the bearer verifier.

export interface TrustedIssuer {
  /** Exactly the token's `iss` (Entra v1: `https://sts.windows.net/<tenant>/`, v2: `https://login.microsoftonline.com/<tenant>/v2.0`). */
  issuer: string;
  /** The issuer's key set; unset: `jwks_uri` from `<issuer>/.well-known/openid-configuration`. */
  jwksUri?: string;
  /** Accepted `aud` values for this issuer; unset: the global audiences. */
  audiences?: string[];
}

export interface OAuthSettings {
  issuers: TrustedIssuer[];
  /** The API resource(s) a token must be issued for (`aud`). */
  audiences: string[];
  /** Tolerated clock difference for `exp`/`nbf`/`iat`, in seconds. */
  clockToleranceSeconds: number;
  /**
   * The oldest token accepted, by its `iat`, in seconds; 0: no limit. A token that is still
   * within its `exp` but was issued long ago (an identity provider configured for day-long or
   * longer lifetimes, or a leaked token replayed) is refused once it is older than this.
   */
  maxTokenAgeSeconds: number;
}

/** Asymmetric algorithms only: `none` and the HMAC family (a shared secret) are never accepted. */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'] as const;
