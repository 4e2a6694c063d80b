// The Bearer verifier of spec §5.1: an OAuth 2.0 client-credentials access
// token (a JWT) from a trusted issuer, checked against the issuer's JWKS with
// jose (signature, algorithm allow-list, issuer, audience, expiry and
// not-before with a small clock tolerance). The facade passes the verified
// client id (and tenant) on; the engine decides whether that application is
// registered, consented, enabled and permitted. The token is logged nowhere.
import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Logger } from 'pino';
import type { CallerVerifier } from '../caller-authentication.ts';
import type { CallerInit } from '../facade-context.ts';
import { ServiceUnavailableError } from '../http-errors.ts';
import { ALLOWED_ALGORITHMS, type OAuthSettings, type TrustedIssuer } from './oauth-settings.ts';

const JWKS_TIMEOUT_MS = 5000;

export function bearerVerifier(settings: OAuthSettings, logger: Logger): CallerVerifier {
  const byIssuer = new Map(settings.issuers.map((trusted) => [trusted.issuer, { trusted, keys: issuerKeys(trusted) }]));
  return {
    scheme: 'bearer',
    async verify(authorization) {
      const token = /^bearer[ \t]+([A-Za-z0-9_.~+/=-]+)[ \t]*$/i.exec(authorization)?.[1];
      if (!token) return undefined;
      // The unverified `iss` only selects which issuer's keys and rules apply; jwtVerify checks it again.
      let claimedIssuer: string | undefined;
      try {
        claimedIssuer = decodeJwt(token).iss;
      } catch {
        return refuse(logger, 'malformed token');
      }
      const entry = claimedIssuer === undefined ? undefined : byIssuer.get(claimedIssuer);
      if (!entry) return refuse(logger, 'untrusted issuer');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, entry.keys, {
          issuer: entry.trusted.issuer,
          audience: entry.trusted.audiences ?? settings.audiences,
          algorithms: [...ALLOWED_ALGORITHMS],
          clockTolerance: settings.clockToleranceSeconds,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        if (isKeySetUnreachable(error)) {
          logger.warn({ issuer: entry.trusted.issuer, reason: error instanceof Error ? error.message : String(error) }, 'identity provider keys unreachable');
          throw new ServiceUnavailableError('The identity provider could not be reached to verify the token');
        }
        return refuse(logger, error instanceof errors.JOSEError ? error.code : 'invalid token');
      }
      return application(payload, entry.trusted.issuer) ?? refuse(logger, 'not an application token');
    },
  };
}

/** Client id from `azp` (Entra v2, OIDC), `appid` (Entra v1) or `client_id` (RFC 9068); tenant from `tid`. */
export function application(payload: JWTPayload, issuer: string): CallerInit | undefined {
  // A delegated (user) token carries `scp`; only app-only client-credentials tokens are accepted.
  if (payload.scp !== undefined) return undefined;
  const clientId = [payload.azp, payload.appid, payload.client_id].find((value): value is string => typeof value === 'string' && value !== '');
  if (!clientId) return undefined;
  const tenantId = typeof payload.tid === 'string' ? payload.tid : '';
  return { identity: { case: 'application', value: { clientId, tenantId, issuer } } };
}

function refuse(logger: Logger, reason: string): undefined {
  logger.info({ reason }, 'bearer token refused');
  return undefined;
}

/** Keys fetched on first use (and refreshed by jose on an unknown `kid`); discovery is retried after a failure. */
function issuerKeys(trusted: TrustedIssuer): JWTVerifyGetKey {
  let keySet: Promise<JWTVerifyGetKey> | undefined;
  return async (header, token) => {
    keySet ??= jwksUri(trusted)
      .then((uri) => createRemoteJWKSet(new URL(uri), { timeoutDuration: JWKS_TIMEOUT_MS }))
      .catch((error: unknown) => {
        keySet = undefined;
        throw error;
      });
    return (await keySet)(header, token);
  };
}

async function jwksUri(trusted: TrustedIssuer): Promise<string> {
  if (trusted.jwksUri) return trusted.jwksUri;
  const discovery = `${trusted.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(discovery, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS) });
  if (!response.ok) throw new DiscoveryError(`${discovery} answered ${response.status}`);
  const document = (await response.json()) as { jwks_uri?: unknown };
  if (typeof document.jwks_uri !== 'string') throw new DiscoveryError(`${discovery} names no jwks_uri`);
  return document.jwks_uri;
}

class DiscoveryError extends Error {}

function isKeySetUnreachable(error: unknown): boolean {
  if (error instanceof DiscoveryError || error instanceof errors.JWKSTimeout) return true;
  // fetch failures (refused connection, DNS, abort) surface as TypeError / AbortError / TimeoutError.
  return error instanceof Error && (error.name === 'TypeError' || error.name === 'AbortError' || error.name === 'TimeoutError');
}
