// Only app-only access tokens (OAuth 2.0 client credentials) may call: a token
// a user obtained through an application, or an OpenID Connect id token, is
// signed by the same trusted issuer and may carry the same client id, so a
// valid signature says nothing about *who* the token speaks for. This decides
// that from the claims alone, after the signature held. It is deliberately
// conservative: one user signal refuses the token, whatever else it carries;
// absent signals accept it (the engine still checks the registration).
//
// The rules, in order; the first that matches names the refusal (`tokenRule`):
//
// Not an access token (any provider):
//   id_token_claims    `nonce`, `at_hash` or `c_hash`: claims only an OIDC id token carries.
//   id_token_audience  header `typ` is not `at+jwt` (RFC 9068) and `aud` names the token's
//                      own client id: an id token is issued *to* the client, an access token
//                      for the API. An `at+jwt` token is an access token by its header.
//   keycloak_id_token  Keycloak's payload `typ` is `ID` (its access tokens say `Bearer`).
//   cognito_token_use  Amazon Cognito's `token_use` is anything but `access` (`id` tokens).
// Issued to a user (delegated):
//   entra_scp          `scp` present: Microsoft Entra ID puts the delegated scopes there and
//                      never in an app-only token (which carries `roles`, if any). Refused
//                      from any provider, as `scp` means user-consented scopes by definition.
//   entra_idtyp        Entra's optional `idtyp` claim present and not `app`.
//   keycloak_user      `preferred_username` (the OIDC end-user name) present and not the
//                      client's Keycloak service account, `service-account-<client id>`
//                      (Keycloak lower-cases user names, so compared case-insensitively).
//   auth0_grant        Auth0's `gty` present and not `client-credentials` (e.g. `password`).
//   auth0_user         An Auth0-shaped token — `gty` present, or a `sub` of the Auth0 user
//                      form `<connection>|<id>` or ending `@clients` — whose `sub` is not
//                      `<client id>@clients`, the subject Auth0 gives client-credentials tokens.
//   cognito_user       A Cognito access token with `username` or `cognito:groups`, or whose
//                      `sub` is not the client id (client-credentials tokens: `sub` = `client_id`).
//   rfc9068_subject    An `at+jwt` token (RFC 9068 §2.2: for client credentials `sub` is the
//                      client) whose `sub` is another, unless a provider rule above vouched for
//                      it (Keycloak service account, Auth0 `@clients`).
// Everything else is an application token. Providers are recognised by their claims, never
// by the issuer URL (custom domains, sovereign clouds). The `sub` comparisons need the client
// id; a token without one is refused by the bearer verifier anyway (token_client_id_missing).
import type { JWTPayload } from 'jose';

export type TokenRule =
  | 'id_token_claims'
  | 'id_token_audience'
  | 'keycloak_id_token'
  | 'cognito_token_use'
  | 'entra_scp'
  | 'entra_idtyp'
  | 'keycloak_user'
  | 'auth0_grant'
  | 'auth0_user'
  | 'cognito_user'
  | 'rfc9068_subject';

export type TokenKind = 'application' | { delegated: TokenRule };

/** The protected header fields this looks at. */
export interface TokenHeader {
  typ?: unknown;
}

const AUTH0_CLIENT_SUFFIX = '@clients';
const KEYCLOAK_SERVICE_ACCOUNT_PREFIX = 'service-account-';

export function classifyToken(header: TokenHeader, claims: JWTPayload): TokenKind {
  const rule = notAnAccessToken(header, claims) ?? userSignal(header, claims);
  return rule ? { delegated: rule } : 'application';
}

/** The client id as the bearer verifier reads it: `azp` (Entra v2, OIDC), `appid` (Entra v1), `client_id` (RFC 9068). */
export function tokenClientId(claims: JWTPayload): string | undefined {
  return [claims.azp, claims.appid, claims.client_id].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
}

function notAnAccessToken(header: TokenHeader, claims: JWTPayload): TokenRule | undefined {
  if (claims.nonce !== undefined || claims.at_hash !== undefined || claims.c_hash !== undefined)
    return 'id_token_claims';
  const clientId = tokenClientId(claims);
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  if (!isAccessTokenType(header) && clientId !== undefined && audiences.includes(clientId)) return 'id_token_audience';
  if (typeof claims.typ === 'string' && claims.typ.toLowerCase() === 'id') return 'keycloak_id_token';
  if (claims.token_use !== undefined && claims.token_use !== 'access') return 'cognito_token_use';
  return undefined;
}

function userSignal(header: TokenHeader, claims: JWTPayload): TokenRule | undefined {
  const clientId = tokenClientId(claims);
  const subject = typeof claims.sub === 'string' ? claims.sub : undefined;
  if (claims.scp !== undefined) return 'entra_scp';
  if (claims.idtyp !== undefined && claims.idtyp !== 'app') return 'entra_idtyp';

  const keycloakServiceAccount = isKeycloakServiceAccount(claims.preferred_username, clientId);
  if (claims.preferred_username !== undefined && !keycloakServiceAccount) return 'keycloak_user';

  const auth0Shaped =
    claims.gty !== undefined ||
    (subject !== undefined && (subject.includes('|') || subject.endsWith(AUTH0_CLIENT_SUFFIX)));
  if (claims.gty !== undefined && claims.gty !== 'client-credentials') return 'auth0_grant';
  const auth0Client = clientId !== undefined && subject === `${clientId}${AUTH0_CLIENT_SUFFIX}`;
  if (auth0Shaped && !auth0Client) return 'auth0_user';

  if (claims.token_use === 'access') {
    if (
      claims.username !== undefined ||
      claims['cognito:groups'] !== undefined ||
      (clientId !== undefined && subject !== clientId)
    )
      return 'cognito_user';
  }

  if (
    isAccessTokenType(header) &&
    clientId !== undefined &&
    subject !== undefined &&
    subject !== clientId &&
    !keycloakServiceAccount &&
    !auth0Client
  )
    return 'rfc9068_subject';
  return undefined;
}

/** RFC 9068 §2.1: `at+jwt`, or the full media type; compared case-insensitively. */
function isAccessTokenType(header: TokenHeader): boolean {
  if (typeof header.typ !== 'string') return false;
  const typ = header.typ.toLowerCase();
  return typ === 'at+jwt' || typ === 'application/at+jwt';
}

function isKeycloakServiceAccount(userName: unknown, clientId: string | undefined): boolean {
  return (
    typeof userName === 'string' &&
    clientId !== undefined &&
    userName.toLowerCase() === `${KEYCLOAK_SERVICE_ACCOUNT_PREFIX}${clientId}`.toLowerCase()
  );
}
