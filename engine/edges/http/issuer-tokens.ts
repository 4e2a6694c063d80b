// Tokens an OAuth / OpenID Connect issuer signed (the console's ID tokens, the
// codec server's operator access tokens), verified against the issuer's
// published keys (common/issuer-keys.ts): signature, asymmetric algorithms
// only, issuer, audience, expiry and the claims the caller requires.
import { jwtVerify, type JWTPayload } from 'jose';
import { issuerKeys } from '../../../common/issuer-keys.ts';

// Asymmetric only: a shared-secret (HS*) token could be minted by anyone holding the secret.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'];
const CLOCK_TOLERANCE_SECONDS = 60;

export interface TokenIssuer {
  issuer: string;
  /** Unset: the issuer's OpenID discovery document names it. */
  jwksUri?: string;
}

/** Resolves to the token's claims; rejects with jose's reason (or the key set's, when it cannot be fetched). */
export type IssuerTokenCheck = (token: string) => Promise<JWTPayload>;

export function issuerTokenCheck(
  issuer: TokenIssuer,
  audience: string | string[],
  requiredClaims: string[],
): IssuerTokenCheck {
  const keys = issuerKeys(issuer);
  return async (token) => {
    const { payload } = await jwtVerify(token, keys, {
      issuer: issuer.issuer,
      audience,
      algorithms: ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims,
    });
    return payload;
  };
}
