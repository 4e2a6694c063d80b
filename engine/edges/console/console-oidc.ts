// Signing in to the console with OpenID Connect: the authorization code flow
// with PKCE (S256) against FLOWHOOK_CONSOLE_OIDC_ISSUER, a confidential client
// when a client secret is set (client_secret_basic), a public one otherwise.
// The ID token is verified (signature with the issuer's published keys,
// asymmetric algorithms only, issuer, audience, expiry, the nonce this login
// chose) and its roles claim read into console roles per company
// (console-roles.ts).
//
// The person's roles are read again later (session-recheck.ts) with the
// refresh token the provider issued at sign-in, if it issued one: a refreshed
// ID token (verified the same way, same subject) or, without one, userinfo
// with the new access token. A refusal, another subject or no role any more
// ends the session; a provider that cannot be reached decides nothing
// (ProviderUnavailableError).
import { errors, type JWTPayload } from 'jose';
import type { ConsoleOidcSettings } from './console-config.ts';
import { grantsFromClaim, type RoleGrants } from '../../domain/callers/console-roles.ts';
import { HttpRefusal } from '../http/http-answers.ts';
import { issuerTokenCheck } from '../http/issuer-tokens.ts';
import {
  authorizationRequest,
  discoveredEndpoints,
  exchangeCode,
  ProviderUnavailableError,
  refreshTokens,
  userinfoClaims,
  type LoginState,
} from '../http/oidc-provider.ts';

export interface OidcPerson {
  name: string;
  grants: RoleGrants;
  /** The ID token's `sub`: a re-check must find the same person. */
  subject: string;
  /** Issued by providers that let the console re-read the roles (some only with the `offline_access` scope). */
  refreshToken?: string;
}

/** What a re-check found: the roles now (and the refresh token to keep), or why the session ends. */
export type Recheck =
  { confirmed: true; grants: RoleGrants; refreshToken: string } | { confirmed: false; reason: string };

/** A sign-in that failed for a reason the person can act on (shown to them; never a token). */
export class OidcSignInError extends HttpRefusal {
  override name = 'OidcSignInError';
}

export interface OidcClient {
  issuer: string;
  begin(redirectUri: string): Promise<{ url: string; login: LoginState }>;
  finish(query: URLSearchParams, login: LoginState | undefined, redirectUri: string): Promise<OidcPerson>;
  /** Throws ProviderUnavailableError when the provider cannot tell. */
  recheck(grant: { refreshToken: string; subject: string }): Promise<Recheck>;
}

export function createOidcClient(settings: ConsoleOidcSettings): OidcClient {
  const discovered = discoveredEndpoints(settings.issuer);
  // The key set is found the same way (common/issuer-keys.ts: discovery, https only).
  const verify = issuerTokenCheck({ issuer: settings.issuer }, settings.clientId, ['exp', 'sub']);

  return {
    issuer: settings.issuer,
    async begin(redirectUri) {
      return authorizationRequest((await discovered()).authorization, settings, redirectUri);
    },
    async finish(query, login, redirectUri) {
      const error = query.get('error');
      if (error)
        throw new OidcSignInError(
          401,
          `The identity provider did not sign you in (${error}${query.get('error_description') ? `: ${query.get('error_description')}` : ''}).`,
        );
      const code = query.get('code');
      if (!login || !code || query.get('state') !== login.state)
        throw new OidcSignInError(
          400,
          'This sign-in is not the one this browser started (or it took longer than ten minutes): start again.',
        );
      const exchanged = await exchangeCode(settings, (await discovered()).token, code, redirectUri, login);
      if (!exchanged.ok || exchanged.answer.idToken === undefined) {
        throw new OidcSignInError(
          502,
          `The identity provider refused to exchange the sign-in code (${exchanged.ok ? 'no ID token' : exchanged.error}).`,
        );
      }
      let payload: JWTPayload;
      try {
        payload = await verify(exchanged.answer.idToken);
      } catch {
        throw new OidcSignInError(502, 'The identity provider answered with an ID token that does not verify.');
      }
      if (payload.nonce !== login.nonce)
        throw new OidcSignInError(400, 'The ID token belongs to another sign-in: start again.');
      const name = nameOf(payload);
      const grants = grantsFromClaim(payload[settings.rolesClaim]);
      if (Object.keys(grants).length === 0) {
        throw new OidcSignInError(
          403,
          `You are ${name} at the identity provider, but it gives you no console role (its "${settings.rolesClaim}" claim lists none of viewer, editor, admin or <role>:<company>).`,
        );
      }
      return { name, grants, subject: payload.sub!, refreshToken: exchanged.answer.refreshToken };
    },
    async recheck(grant) {
      const found = await discovered();
      const refreshed = await refreshTokens(settings, found.token, grant.refreshToken);
      if (!refreshed.ok)
        return { confirmed: false, reason: `the identity provider refused the refresh token (${refreshed.error})` };
      const { idToken, accessToken } = refreshed.answer;
      let claims: Record<string, unknown> | undefined;
      if (idToken !== undefined) {
        try {
          claims = await verify(idToken);
        } catch (error) {
          if (keysUnreachable(error))
            throw new ProviderUnavailableError("the identity provider's signing keys could not be fetched");
          return { confirmed: false, reason: 'the identity provider answered with an ID token that does not verify' };
        }
      } else if (found.userinfo !== undefined && accessToken !== undefined) {
        claims = await userinfoClaims(found.userinfo, accessToken);
        if (claims === undefined)
          return { confirmed: false, reason: 'the identity provider refused its own access token at userinfo' };
      } else {
        return {
          confirmed: false,
          reason:
            'the identity provider refreshed without an ID token and names no userinfo endpoint: the roles cannot be read',
        };
      }
      if (claims.sub !== grant.subject)
        return { confirmed: false, reason: 'the identity provider answered for another subject' };
      const grants = grantsFromClaim(claims[settings.rolesClaim]);
      if (Object.keys(grants).length === 0)
        return {
          confirmed: false,
          reason: `the identity provider gives them no console role any more (claim "${settings.rolesClaim}")`,
        };
      // Providers that rotate refresh tokens send a new one; others keep the one we have.
      return { confirmed: true, grants, refreshToken: refreshed.answer.refreshToken ?? grant.refreshToken };
    },
  };
}

/** jose's key set could not be fetched (timeout, network, discovery): the token was never judged. */
function keysUnreachable(error: unknown): boolean {
  if (error instanceof errors.JWKSTimeout) return true;
  return !(error instanceof errors.JOSEError);
}

/** What the audit log calls the person: their user name, else their e-mail, else their name, else the subject. */
function nameOf(payload: JWTPayload): string {
  for (const claim of ['preferred_username', 'email', 'name', 'sub']) {
    const value = payload[claim];
    if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, 200);
  }
  return 'unnamed person';
}
