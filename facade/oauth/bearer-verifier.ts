// The Bearer verifier (the service-to-service path): an OAuth 2.0 client-credentials access
// token (a JWT) from a trusted issuer, checked against the issuer's JWKS with
// jose (signature, algorithm allow-list, issuer, audience, expiry and
// not-before with a small clock tolerance, and an `iat` no older than the
// configured maximum age). Only an app-only access token
// passes: a user's (delegated) token or an id token is refused by the rules of
// token-kind.ts. The facade passes the verified client id, tenant and issuer
// on; the engine decides whether that application is registered under that
// issuer (and tenant), consented, enabled and permitted. The token is logged
// nowhere; a refusal names its reason (and the issuer, and the client id once
// the signature held) for the facade's one `call refused` line.
import { decodeJwt, errors, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { isKeySetUnreachable, issuerKeys } from '../../common/issuer-keys.ts';
import type { Logger } from 'pino';
import type { RefusalReason } from '../../common/refusal-reasons.ts';
import { REALM, type CallerVerifier, type Verification } from '../caller-credentials.ts';
import type { CallerInit } from '../facade-context.ts';
import { ServiceUnavailableError } from '../http-errors.ts';
import { ALLOWED_ALGORITHMS, type OAuthSettings } from './oauth-settings.ts';
import { classifyToken, tokenClientId } from './token-kind.ts';

export function bearerVerifier(settings: OAuthSettings, logger: Logger): CallerVerifier {
  const byIssuer = new Map(settings.issuers.map((trusted) => [trusted.issuer, { trusted, keys: issuerKeys(trusted) }]));
  return {
    scheme: 'bearer',
    challenge: `Bearer realm="${REALM}"`,
    async verify(authorization): Promise<Verification> {
      const token = /^bearer[ \t]+([A-Za-z0-9_.~+/=-]+)[ \t]*$/i.exec(authorization)?.[1];
      if (!token) return { refused: { reason: 'malformed_credentials' } };
      // The unverified `iss` only selects which issuer's keys and rules apply; jwtVerify checks it again.
      let claimedIssuer: unknown;
      try {
        claimedIssuer = decodeJwt(token).iss;
      } catch {
        return { refused: { reason: 'malformed_credentials' } };
      }
      const entry = typeof claimedIssuer === 'string' ? byIssuer.get(claimedIssuer) : undefined;
      if (!entry)
        return {
          refused: {
            reason: 'token_issuer_untrusted',
            issuer: typeof claimedIssuer === 'string' ? claimedIssuer : undefined,
          },
        };
      const issuer = entry.trusted.issuer;
      let payload: JWTPayload;
      let protectedHeader: JWTHeaderParameters;
      try {
        ({ payload, protectedHeader } = await jwtVerify(token, entry.keys, {
          issuer,
          audience: entry.trusted.audiences ?? settings.audiences,
          algorithms: [...ALLOWED_ALGORITHMS],
          clockTolerance: settings.clockToleranceSeconds,
          // jose then requires `iat`, refuses one older than this (and one in the future beyond the tolerance).
          maxTokenAge: settings.maxTokenAgeSeconds > 0 ? settings.maxTokenAgeSeconds : undefined,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        if (isKeySetUnreachable(error)) {
          logger.warn(
            { issuer, reason: error instanceof Error ? error.message : String(error) },
            'identity provider keys unreachable',
          );
          throw new ServiceUnavailableError('The identity provider could not be reached to verify the token');
        }
        return { refused: { reason: tokenRefusalReason(error), issuer, clientId: signedClientId(error) } };
      }
      const kind = classifyToken(protectedHeader, payload);
      if (kind !== 'application')
        return {
          refused: { reason: 'token_delegated', tokenRule: kind.delegated, issuer, clientId: tokenClientId(payload) },
        };
      const caller = application(payload, issuer);
      if (caller) return { caller };
      return { refused: { reason: 'token_client_id_missing', issuer } };
    },
  };
}

/**
 * Client id from `azp` (Entra v2, OIDC), `appid` (Entra v1) or `client_id` (RFC 9068); tenant from `tid`.
 * Only for a token classifyToken took for an application's.
 */
export function application(payload: JWTPayload, issuer: string): CallerInit | undefined {
  const clientId = tokenClientId(payload);
  if (!clientId) return undefined;
  const tenantId = typeof payload.tid === 'string' ? payload.tid : '';
  return { identity: { case: 'application', value: { clientId, tenantId, issuer } } };
}

/** Why jwtVerify refused a token, in the terms an operator acts on. */
function tokenRefusalReason(error: unknown): RefusalReason {
  if (error instanceof errors.JWTExpired)
    return error.claim === 'exp' ? 'token_expired' : error.claim === 'iat' ? 'token_too_old' : 'token_invalid';
  if (error instanceof errors.JWTClaimValidationFailed) {
    // With a maximum age, a token that does not say when it was issued cannot be shown to be young enough.
    if (error.claim === 'iat' && error.reason === 'missing') return 'token_too_old';
    // `missing`/`check_failed` describe the claim's value; `invalid` a claim of the wrong type.
    if (error.claim === 'aud') return 'token_audience_mismatch';
    if (error.claim === 'iss') return 'token_issuer_untrusted';
    if (error.claim === 'nbf' && error.reason === 'check_failed') return 'token_not_yet_valid';
    return 'token_invalid';
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'token_algorithm_refused';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'token_signature_invalid';
  if (error instanceof errors.JWKSNoMatchingKey) return 'token_key_unknown';
  return 'token_invalid';
}

/** Claims are checked only after the signature held, so a claim failure's client id is the issuer's word. */
function signedClientId(error: unknown): string | undefined {
  if (error instanceof errors.JWTExpired || error instanceof errors.JWTClaimValidationFailed)
    return tokenClientId(error.payload);
  return undefined;
}
