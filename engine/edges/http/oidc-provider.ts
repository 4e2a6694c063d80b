// An OpenID Connect provider as a client of it calls it: the discovery
// document, the authorization request (the code flow with PKCE S256), the
// token endpoint (the code exchange, and a refresh) and userinfo. What the
// provider answers is returned as data; only a provider that cannot be reached
// (or answers with a server error) throws. No token ever reaches a message:
// errors name the provider's error code or status.
import { createHash } from 'node:crypto';
import { acceptableJwksUri } from '../../../common/issuer-keys.ts';
import { withoutTrailingSlashes } from '../../../common/trailing-slashes.ts';
import { randomToken } from './browser-sessions.ts';

const TIMEOUT_MS = 10_000;

/** The client we are at the provider: confidential with a secret (client_secret_basic), public without (PKCE alone). */
export interface OAuthClient {
  clientId: string;
  clientSecret?: string;
}

export interface Endpoints {
  authorization: string;
  token: string;
  /** Optional in discovery: without it, only an ID token tells the claims. */
  userinfo?: string;
}

/** The provider could not be reached, or answered with a server error: nothing about the person follows from it. */
export class ProviderUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderUnavailableError';
  }
}

/** The issuer's endpoints, discovered at the first use; a failed discovery is tried again at the next use rather than remembered. */
export function discoveredEndpoints(issuer: string): () => Promise<Endpoints> {
  let endpoints: Promise<Endpoints> | undefined;
  return () =>
    (endpoints ??= discover(issuer).catch((error: unknown) => {
      endpoints = undefined;
      throw error;
    }));
}

export async function discover(issuer: string): Promise<Endpoints> {
  const url = `${withoutTrailingSlashes(issuer)}/.well-known/openid-configuration`;
  const response = await reach(url, () => fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) }));
  if (!response.ok)
    throw new ProviderUnavailableError(
      `the identity provider's discovery document (${url}) answered ${response.status}`,
    );
  const document = (await response.json()) as Record<string, unknown>;
  const named = (key: string) => {
    const value = document[key];
    // The same rule as for its keys: https, or http only for an issuer that is itself http on loopback.
    return typeof value === 'string' && acceptableJwksUri(value, issuer) ? value : undefined;
  };
  const authorization = named('authorization_endpoint');
  const token = named('token_endpoint');
  if (!authorization || !token)
    throw new ProviderUnavailableError(
      `the identity provider's discovery document names no usable ${authorization ? 'token' : 'authorization'}_endpoint`,
    );
  return { authorization, token, userinfo: named('userinfo_endpoint') };
}

/** What the browser keeps between leaving for the identity provider and coming back (a short-lived cookie). */
export interface LoginState {
  state: string;
  nonce: string;
  verifier: string;
}

/** Where to send the browser to sign in, and the login it must bring back (state, nonce, PKCE verifier: fresh ones). */
export function authorizationRequest(
  endpoint: string,
  client: OAuthClient & { scopes: readonly string[] },
  redirectUri: string,
): { url: string; login: LoginState } {
  const login: LoginState = { state: randomToken(), nonce: randomToken(), verifier: randomToken() };
  const url = new URL(endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: client.scopes.join(' '),
    state: login.state,
    nonce: login.nonce,
    code_challenge: createHash('sha256').update(login.verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.toString(), login };
}

export interface TokenAnswer {
  idToken?: string;
  accessToken?: string;
  refreshToken?: string;
}

/** What the token endpoint said: tokens, or its refusal (an OAuth error code, or the status when it names none). */
export type TokenResult = { ok: true; answer: TokenAnswer } | { ok: false; status: number; error: string };

/** The authorization code exchanged, with the verifier of the login that asked for it. */
export function exchangeCode(
  client: OAuthClient,
  endpoint: string,
  code: string,
  redirectUri: string,
  login: LoginState,
): Promise<TokenResult> {
  return postToken(
    client,
    endpoint,
    new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: login.verifier,
    }),
  );
}

export function refreshTokens(client: OAuthClient, endpoint: string, refreshToken: string): Promise<TokenResult> {
  return postToken(client, endpoint, new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }));
}

/** A token request as our client: client_secret_basic when a secret is set, else a public client naming itself. */
async function postToken(client: OAuthClient, endpoint: string, form: URLSearchParams): Promise<TokenResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (client.clientSecret === undefined) form.set('client_id', client.clientId);
  else
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
  const response = await reach(endpoint, () =>
    fetch(endpoint, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(TIMEOUT_MS) }),
  );
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status >= 500 || response.status === 429)
    throw new ProviderUnavailableError(`the identity provider's token endpoint answered ${response.status}`);
  if (!response.ok)
    return {
      ok: false,
      status: response.status,
      error: typeof body.error === 'string' ? body.error.slice(0, 100) : String(response.status),
    };
  const text = (key: string) => (typeof body[key] === 'string' && body[key] !== '' ? body[key] : undefined);
  return {
    ok: true,
    answer: { idToken: text('id_token'), accessToken: text('access_token'), refreshToken: text('refresh_token') },
  };
}

/** The claims userinfo answers for an access token; undefined when the provider refuses the token (401, 403). */
export async function userinfoClaims(
  endpoint: string,
  accessToken: string,
): Promise<Record<string, unknown> | undefined> {
  const response = await reach(endpoint, () =>
    fetch(endpoint, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }),
  );
  if (response.status === 401 || response.status === 403) return undefined;
  if (!response.ok)
    throw new ProviderUnavailableError(`the identity provider's userinfo endpoint answered ${response.status}`);
  const claims = (await response.json().catch(() => undefined)) as unknown;
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims))
    throw new ProviderUnavailableError("the identity provider's userinfo endpoint answered no JSON object");
  return claims as Record<string, unknown>;
}

/** A request that fails to connect or times out is the provider being unavailable, named by its endpoint only. */
async function reach(endpoint: string, request: () => Promise<Response>): Promise<Response> {
  try {
    return await request();
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError' ? 'did not answer in time' : 'could not be reached';
    throw new ProviderUnavailableError(`the identity provider (${new URL(endpoint).origin}) ${reason}`);
  }
}
