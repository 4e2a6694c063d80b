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
import { createHash, randomBytes } from 'node:crypto';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { issuerKeys } from '../../common/issuer-keys.ts';
import type { ConsoleOidcSettings } from './console-config.ts';
import { grantsFromClaim, type RoleGrants } from './console-roles.ts';
import { discover, postToken, ProviderUnavailableError, userinfoClaims, type Endpoints } from './oidc-endpoints.ts';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'];
const CLOCK_TOLERANCE_SECONDS = 60;

/** What the browser keeps between leaving for the identity provider and coming back (a short-lived cookie). */
export interface LoginState {
  state: string;
  nonce: string;
  verifier: string;
}

export interface OidcPerson {
  name: string;
  grants: RoleGrants;
  /** The ID token's `sub`: a re-check must find the same person. */
  subject: string;
  /** Issued by providers that let the console re-read the roles (some only with the `offline_access` scope). */
  refreshToken?: string;
}

/** What a re-check found: the roles now (and the refresh token to keep), or why the session ends. */
export type Recheck = { confirmed: true; grants: RoleGrants; refreshToken: string } | { confirmed: false; reason: string };

/** A sign-in that failed for a reason the person can act on (shown to them; never a token). */
export class OidcSignInError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'OidcSignInError';
    this.status = status;
  }
}

export interface OidcClient {
  issuer: string;
  begin(redirectUri: string): Promise<{ url: string; login: LoginState }>;
  finish(query: URLSearchParams, login: LoginState | undefined, redirectUri: string): Promise<OidcPerson>;
  /** Throws ProviderUnavailableError when the provider cannot tell. */
  recheck(grant: { refreshToken: string; subject: string }): Promise<Recheck>;
}

export function createOidcClient(settings: ConsoleOidcSettings): OidcClient {
  let endpoints: Promise<Endpoints> | undefined;
  // A failed discovery is tried again at the next use rather than remembered.
  const discovered = () =>
    (endpoints ??= discover(settings.issuer).catch((error: unknown) => {
      endpoints = undefined;
      throw error;
    }));
  // The key set is found the same way (common/issuer-keys.ts: discovery, https only).
  const keys = issuerKeys({ issuer: settings.issuer });
  const verify = async (idToken: string): Promise<JWTPayload> => {
    const { payload } = await jwtVerify(idToken, keys, {
      issuer: settings.issuer,
      audience: settings.clientId,
      algorithms: ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['exp', 'sub'],
    });
    return payload;
  };

  return {
    issuer: settings.issuer,
    async begin(redirectUri) {
      const login: LoginState = { state: random(), nonce: random(), verifier: random() };
      const url = new URL((await discovered()).authorization);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: settings.clientId,
        redirect_uri: redirectUri,
        scope: settings.scopes.join(' '),
        state: login.state,
        nonce: login.nonce,
        code_challenge: challengeOf(login.verifier),
        code_challenge_method: 'S256',
      }).toString();
      return { url: url.toString(), login };
    },
    async finish(query, login, redirectUri) {
      const error = query.get('error');
      if (error)
        throw new OidcSignInError(`The identity provider did not sign you in (${error}${query.get('error_description') ? `: ${query.get('error_description')}` : ''}).`, 401);
      const code = query.get('code');
      if (!login || !code || query.get('state') !== login.state)
        throw new OidcSignInError('This sign-in is not the one this browser started (or it took longer than ten minutes): start again.', 400);
      const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: login.verifier });
      const exchanged = await postToken(settings, (await discovered()).token, form);
      if (!exchanged.ok || exchanged.answer.idToken === undefined) {
        throw new OidcSignInError(`The identity provider refused to exchange the sign-in code (${exchanged.ok ? 'no ID token' : exchanged.error}).`, 502);
      }
      let payload: JWTPayload;
      try {
        payload = await verify(exchanged.answer.idToken);
      } catch {
        throw new OidcSignInError('The identity provider answered with an ID token that does not verify.', 502);
      }
      if (payload.nonce !== login.nonce) throw new OidcSignInError('The ID token belongs to another sign-in: start again.', 400);
      const name = nameOf(payload);
      const grants = grantsFromClaim(payload[settings.rolesClaim]);
      if (Object.keys(grants).length === 0) {
        throw new OidcSignInError(
          `You are ${name} at the identity provider, but it gives you no console role (its "${settings.rolesClaim}" claim lists none of viewer, editor, admin or <role>:<company>).`,
          403,
        );
      }
      return { name, grants, subject: payload.sub!, refreshToken: exchanged.answer.refreshToken };
    },
    async recheck(grant) {
      const found = await discovered();
      const refreshed = await postToken(settings, found.token, new URLSearchParams({ grant_type: 'refresh_token', refresh_token: grant.refreshToken }));
      if (!refreshed.ok) return { confirmed: false, reason: `the identity provider refused the refresh token (${refreshed.error})` };
      const { idToken, accessToken } = refreshed.answer;
      let claims: Record<string, unknown> | undefined;
      if (idToken !== undefined) {
        try {
          claims = await verify(idToken);
        } catch (error) {
          if (keysUnreachable(error)) throw new ProviderUnavailableError("the identity provider's signing keys could not be fetched");
          return { confirmed: false, reason: 'the identity provider answered with an ID token that does not verify' };
        }
      } else if (found.userinfo !== undefined && accessToken !== undefined) {
        claims = await userinfoClaims(found.userinfo, accessToken);
        if (claims === undefined) return { confirmed: false, reason: 'the identity provider refused its own access token at userinfo' };
      } else {
        return { confirmed: false, reason: 'the identity provider refreshed without an ID token and names no userinfo endpoint: the roles cannot be read' };
      }
      if (claims.sub !== grant.subject) return { confirmed: false, reason: 'the identity provider answered for another subject' };
      const grants = grantsFromClaim(claims[settings.rolesClaim]);
      if (Object.keys(grants).length === 0) return { confirmed: false, reason: `the identity provider gives them no console role any more (claim "${settings.rolesClaim}")` };
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

function random(): string {
  return randomBytes(32).toString('base64url');
}

function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
