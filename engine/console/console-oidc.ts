// Signing in to the console with OpenID Connect: the authorization code flow
// with PKCE (S256) against FLOWHOOK_CONSOLE_OIDC_ISSUER, a confidential client
// when a client secret is set (client_secret_basic), a public one otherwise.
// The ID token is verified (signature with the issuer's published keys,
// asymmetric algorithms only, issuer, audience, expiry, the nonce this login
// chose) and its roles claim read into console roles per company
// (console-roles.ts). Tokens are not kept: the console's own session is what
// lasts, and a person's roles are read again at their next sign-in.
import { createHash, randomBytes } from 'node:crypto';
import { jwtVerify, type JWTPayload } from 'jose';
import { acceptableJwksUri, issuerKeys } from '../../common/issuer-keys.ts';
import { withoutTrailingSlashes } from '../../common/trailing-slashes.ts';
import type { ConsoleOidcSettings } from './console-config.ts';
import { grantsFromClaim, type RoleGrants } from './console-roles.ts';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'];
const CLOCK_TOLERANCE_SECONDS = 60;
const TIMEOUT_MS = 10_000;

/** What the browser keeps between leaving for the identity provider and coming back (a short-lived cookie). */
export interface LoginState {
  state: string;
  nonce: string;
  verifier: string;
}

export interface OidcPerson {
  name: string;
  grants: RoleGrants;
}

/** A sign-in that failed for a reason the person can act on (shown to them; never a token). */
export class OidcSignInError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'OidcSignInError';
    this.status = status;
  }
}

interface Endpoints {
  authorization: string;
  token: string;
}

export interface OidcClient {
  issuer: string;
  begin(redirectUri: string): Promise<{ url: string; login: LoginState }>;
  finish(query: URLSearchParams, login: LoginState | undefined, redirectUri: string): Promise<OidcPerson>;
}

export function createOidcClient(settings: ConsoleOidcSettings): OidcClient {
  let endpoints: Promise<Endpoints> | undefined;
  // A failed discovery is tried again at the next sign-in rather than remembered.
  const discovered = () =>
    (endpoints ??= discover(settings.issuer).catch((error: unknown) => {
      endpoints = undefined;
      throw error;
    }));
  // The key set is found the same way (common/issuer-keys.ts: discovery, https only).
  const keys = issuerKeys({ issuer: settings.issuer });

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
      const idToken = await exchangeCode(settings, (await discovered()).token, code, login.verifier, redirectUri);
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(idToken, keys, {
          issuer: settings.issuer,
          audience: settings.clientId,
          algorithms: ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp', 'sub'],
        }));
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
      return { name, grants };
    },
  };
}

async function discover(issuer: string): Promise<Endpoints> {
  const url = `${withoutTrailingSlashes(issuer)}/.well-known/openid-configuration`;
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!response.ok) throw new OidcSignInError(`The identity provider's discovery document (${url}) answered ${response.status}.`, 502);
  const document = (await response.json()) as Record<string, unknown>;
  const named = (key: string) => {
    const value = document[key];
    // The same rule as for its keys: https, or http only for an issuer that is itself http on loopback.
    if (typeof value !== 'string' || !acceptableJwksUri(value, issuer)) throw new OidcSignInError(`The identity provider's discovery document names no usable ${key}.`, 502);
    return value;
  };
  return { authorization: named('authorization_endpoint'), token: named('token_endpoint') };
}

async function exchangeCode(settings: ConsoleOidcSettings, tokenEndpoint: string, code: string, verifier: string, redirectUri: string): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (settings.clientSecret === undefined) form.set('client_id', settings.clientId);
  else headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`).toString('base64')}`;
  const response = await fetch(tokenEndpoint, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const body = (await response.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown };
  if (!response.ok || typeof body.id_token !== 'string') {
    throw new OidcSignInError(`The identity provider refused to exchange the sign-in code (${typeof body.error === 'string' ? body.error : response.status}).`, 502);
  }
  return body.id_token;
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
