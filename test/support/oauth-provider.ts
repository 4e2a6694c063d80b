// A real OAuth 2.0 authorization server for the tests: oidc-provider on a
// loopback port, with the client-credentials grant and resource indicators,
// issuing RS256 JWT access tokens for the requested API resource.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import Provider, { errors } from 'oidc-provider';

export interface TestClient {
  clientId: string;
  clientSecret: string;
}

export interface TestAuthorizationServer {
  issuer: string;
  /** The signing key, for tests that craft tokens the server would sign. */
  privateKey: CryptoKey;
  kid: string;
  /** A client-credentials access token for the resource (default: the server's API resource). */
  token(client: TestClient, resource?: string): Promise<string>;
  /** How many requests reached the token endpoint so far. */
  tokenRequests(): number;
  close(): Promise<void>;
}

export interface AuthorizationServerOptions {
  clients: TestClient[];
  /** Resource indicators the server issues tokens for; the first is the default. */
  resources: string[];
}

export async function startAuthorizationServer(options: AuthorizationServerOptions): Promise<TestAuthorizationServer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `test-${Math.random().toString(36).slice(2, 10)}`;
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };

  // The issuer URL names the port, so listen first and attach the provider after.
  let tokenRequests = 0;
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/token')) tokenRequests++;
    // Koa's handler (the provider is a Koa app) answers every request itself, errors included.
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    })),
    jwks: { keys: [jwk] },
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resources[0]!,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (!options.resources.includes(resourceIndicator)) throw new errors.InvalidTarget();
          return {
            scope: '',
            audience: resourceIndicator,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 300,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });
  const handler = provider.callback();

  return {
    issuer,
    privateKey,
    kid,
    tokenRequests: () => tokenRequests,
    async token(client, resource = options.resources[0]!) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource }),
      });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!response.ok || !body.access_token)
        throw new Error(`token request failed: ${response.status} ${body.error} ${body.error_description}`);
      return body.access_token;
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
