// oauth2-client-credentials: the worker gets an access token from the token
// endpoint (RFC 6749 §4.4, the client authenticated with client_secret_basic,
// §2.3.1: id and secret form-encoded, then Basic), keeps it in its memory until
// shortly before it expires and sends it as `Authorization: Bearer`.
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import {
  AuthenticationFailure,
  type AuthenticationServices,
  type ConnectionCredentials,
  type ConnectionKind,
  type TokenGrant,
} from './connection-kind.ts';
import { basicCredentials } from './http-basic.ts';
import { urlSettingProblems } from './url-setting.ts';

export const oauth2ClientCredentialsKind: ConnectionKind<ConnectionType.OAUTH2_CLIENT_CREDENTIALS> = {
  type: ConnectionType.OAUTH2_CLIENT_CREDENTIALS,
  name: 'oauth2-client-credentials',
  secretName: 'client secret',
  settings: [
    { name: 'tokenUrl', required: true, help: 'the token endpoint' },
    { name: 'clientId', required: true, help: 'the client id' },
    { name: 'scope', help: 'the scope to request' },
    { name: 'audience', help: 'the audience to request' },
  ],
  check({ tokenUrl }) {
    return tokenUrl ? urlSettingProblems(tokenUrl, 'tokenUrl', false) : [];
  },
  async authenticate(connection, services) {
    const token = await services.cachedToken(() => fetchToken(connection, services));
    return { authorization: `Bearer ${token}` };
  },
};

async function fetchToken(
  { name, settings, secret }: ConnectionCredentials,
  services: AuthenticationServices,
): Promise<TokenGrant> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (settings.scope) form.set('scope', settings.scope);
  if (settings.audience) form.set('audience', settings.audience);
  const basic = basicCredentials(formEncode(settings.clientId), formEncode(secret));
  // The token endpoint is an outbound call like any other: the same egress policy, no redirects.
  const answer = await services.send({
    method: 'POST',
    url: new URL(settings.tokenUrl),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      authorization: `Basic ${basic}`,
    },
    body: form.toString(),
  });
  const json = parseJson(answer.body);
  if (answer.status !== 200) {
    // The OAuth error code is safe to show; the rest of the answer might echo what was sent.
    const code = typeof json?.error === 'string' && /^[\x20-\x7e]{1,64}$/.test(json.error) ? ` ${json.error}` : '';
    const message = `connection "${name}": the token endpoint answered HTTP ${answer.status}${code}`;
    const unavailable = answer.status >= 500 || answer.status === 429;
    throw new AuthenticationFailure(message, unavailable ? 'TokenEndpointUnavailable' : 'TokenRefused', unavailable);
  }
  if (typeof json?.access_token !== 'string' || json.access_token === '')
    throw new AuthenticationFailure(
      `connection "${name}": the token endpoint answered without an access_token`,
      'TokenRefused',
      false,
    );
  const expiresIn = Number(json.expires_in);
  return {
    accessToken: json.access_token,
    expiresInMs: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : undefined,
  };
}

function parseJson(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    // ignoreBOM keeps a byte order mark in the text, where JSON.parse refuses it.
    const value = JSON.parse(new TextDecoder('utf-8', { ignoreBOM: true }).decode(body)) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function formEncode(text: string): string {
  return new URLSearchParams({ v: text }).toString().slice(2);
}
