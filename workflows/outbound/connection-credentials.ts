// How each connection kind signs a request: the headers it adds. The engine
// hands the connection (with its secret) to the activity at run time; the
// headers exist only in this request's memory.
import { ConnectionType, type ConnectionSettings } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import type { ResolvedConnection } from '../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { DEFAULT_API_KEY_HEADER } from '../shared/connection-kinds.ts';
import type { EgressPolicy } from '../shared/egress-policy.ts';
import { sendGuarded, type GuardedLimits } from './guarded-http.ts';
import type { OAuthTokenCache, TokenGrant } from './oauth-token-cache.ts';
import { OutboundFailed, OutboundRefused } from './outbound-errors.ts';

export interface SigningContext {
  company: string;
  tokens: OAuthTokenCache;
  policy: EgressPolicy;
  limits: GuardedLimits;
}

/** Lower-case header name → value. */
export async function credentialHeaders(connection: ResolvedConnection, context: SigningContext): Promise<Record<string, string>> {
  const settings = connection.settings!;
  switch (settings.type) {
    case ConnectionType.API_KEY:
      return { [(settings.headerName || DEFAULT_API_KEY_HEADER).toLowerCase()]: connection.secret };
    case ConnectionType.BASIC:
      return { authorization: `Basic ${Buffer.from(`${settings.username}:${connection.secret}`, 'utf8').toString('base64')}` };
    case ConnectionType.BEARER:
      return { authorization: `Bearer ${connection.secret}` };
    case ConnectionType.OAUTH2_CLIENT_CREDENTIALS: {
      const token = await context.tokens.token(tokenKey(context.company, connection), () => fetchToken(connection.name, settings, connection.secret, context));
      return { authorization: `Bearer ${token}` };
    }
    default:
      throw new OutboundRefused(`connection "${connection.name}" has a type this worker does not know`, 'ConnectionInvalid');
  }
}

export function tokenKey(company: string, connection: ResolvedConnection): string {
  return `${company}\u0000${connection.name}\u0000${connection.version}`;
}

/** RFC 6749 §4.4 with client_secret_basic (§2.3.1: id and secret form-encoded, then Basic). */
async function fetchToken(name: string, settings: ConnectionSettings, secret: string, context: SigningContext): Promise<TokenGrant> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (settings.scope) form.set('scope', settings.scope);
  if (settings.audience) form.set('audience', settings.audience);
  const basic = Buffer.from(`${formEncode(settings.clientId)}:${formEncode(secret)}`, 'utf8').toString('base64');
  // The token endpoint is an outbound call like any other: the same egress policy, no redirects.
  const answer = await sendGuarded(
    {
      method: 'POST',
      url: new URL(settings.tokenUrl),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
      body: form.toString(),
    },
    context.policy,
    { ...context.limits, maxRedirects: 0 },
  );
  const json = parseJson(answer.body);
  if (answer.status !== 200) {
    // The OAuth error code is safe to show; the rest of the answer might echo what was sent.
    const code = typeof json?.error === 'string' && /^[\x20-\x7e]{1,64}$/.test(json.error) ? ` ${json.error}` : '';
    const message = `connection "${name}": the token endpoint answered HTTP ${answer.status}${code}`;
    if (answer.status >= 500 || answer.status === 429) throw new OutboundFailed(message, 'TokenEndpointUnavailable');
    throw new OutboundRefused(message, 'TokenRefused');
  }
  if (typeof json?.access_token !== 'string' || json.access_token === '') throw new OutboundRefused(`connection "${name}": the token endpoint answered without an access_token`, 'TokenRefused');
  const expiresIn = Number(json.expires_in);
  return { accessToken: json.access_token, expiresInMs: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : undefined };
}

function parseJson(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function formEncode(text: string): string {
  return new URLSearchParams({ v: text }).toString().slice(2);
}
