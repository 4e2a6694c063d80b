// The signing keys of an OAuth issuer, for jose's jwtVerify: fetched on first
// use from the configured JWKS URI or the one the issuer's OpenID discovery
// document names (jose refreshes them on an unknown `kid`). A failed discovery
// is retried on the next token rather than remembered. Shared by the facade's
// Bearer callers and the engine's codec server operators.
import { createRemoteJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import { withoutTrailingSlashes } from './trailing-slashes.ts';

const JWKS_TIMEOUT_MS = 5000;

export class DiscoveryError extends Error {}

export function issuerKeys(issuer: { issuer: string; jwksUri?: string }): JWTVerifyGetKey {
  let keySet: Promise<JWTVerifyGetKey> | undefined;
  return async (header, token) => {
    keySet ??= jwksUri(issuer)
      .then((uri) => createRemoteJWKSet(new URL(uri), { timeoutDuration: JWKS_TIMEOUT_MS }))
      .catch((error: unknown) => {
        keySet = undefined;
        throw error;
      });
    return (await keySet)(header, token);
  };
}

async function jwksUri(issuer: { issuer: string; jwksUri?: string }): Promise<string> {
  if (issuer.jwksUri) return issuer.jwksUri;
  const discovery = `${withoutTrailingSlashes(issuer.issuer)}/.well-known/openid-configuration`;
  const response = await fetch(discovery, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS) });
  if (!response.ok) throw new DiscoveryError(`${discovery} answered ${response.status}`);
  const document = (await response.json()) as { jwks_uri?: unknown };
  if (typeof document.jwks_uri !== 'string') throw new DiscoveryError(`${discovery} names no jwks_uri`);
  if (!acceptableJwksUri(document.jwks_uri, issuer.issuer)) {
    throw new DiscoveryError(
      `${discovery} names jwks_uri ${document.jwks_uri}: it must be https (http only when the issuer itself is http on a loopback host)`,
    );
  }
  return document.jwks_uri;
}

/**
 * The keys decide which tokens are genuine, so they are fetched over https; a discovery document
 * (or whoever altered it) may not send us to cleartext. Only a local identity provider, itself
 * http on loopback (development, tests), may name an http key set.
 */
export function acceptableJwksUri(jwksUri: string, issuer: string): boolean {
  const keys = URL.parse(jwksUri);
  if (keys?.protocol === 'https:') return true;
  const from = URL.parse(issuer);
  return keys?.protocol === 'http:' && from?.protocol === 'http:' && LOOPBACK_HOSTS.has(from.hostname);
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The issuer could not be asked for its keys (as opposed to a token that failed verification). */
export function isKeySetUnreachable(error: unknown): boolean {
  if (error instanceof DiscoveryError || error instanceof errors.JWKSTimeout) return true;
  // fetch failures (refused connection, DNS, abort) surface as TypeError / AbortError / TimeoutError.
  return (
    error instanceof Error &&
    (error.name === 'TypeError' || error.name === 'AbortError' || error.name === 'TimeoutError')
  );
}
