// A real OpenID Connect provider for the console's sign-in tests:
// oidc-provider on a loopback port with one public client (authorization code,
// PKCE required) and people whose ID tokens carry a roles claim. Its login and
// consent steps complete at once for the person the test names (the tests
// are about the console's side of the flow, not a login form). It issues
// refresh tokens (rotated at each use, as oidc-provider does for public
// clients) unless told not to, like providers that issue them without
// `offline_access`; a person's roles can change, or the person go, between
// sign-in and a refresh.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface TestPerson {
  accountId: string;
  name: string;
  roles: unknown;
}

export interface TestOidcProvider {
  issuer: string;
  /** Who the next sign-in completes as. */
  signInAs(accountId: string): void;
  /** What the provider says about the person from now on (their roles; undefined: the person is gone). */
  setRoles(accountId: string, roles: unknown): void;
  removePerson(accountId: string): void;
  /** false: every request is answered 503, as by a provider that is down. */
  setAvailable(available: boolean): void;
  /** Refresh token grants the provider answered: granted, and refused. */
  refreshes(): { granted: number; refused: number };
  close(): Promise<void>;
}

export async function startOidcProvider(options: {
  clientId: string;
  redirectUri: string;
  people: TestPerson[];
  rolesClaim?: string;
  /** Default true. */
  refreshTokens?: boolean;
}): Promise<TestOidcProvider> {
  const people = options.people.map((person) => ({ ...person }));
  const refreshTokens = options.refreshTokens ?? true;
  const refreshes = { granted: 0, refused: 0 };
  let available = true;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'console-test', alg: 'RS256', use: 'sig' };
  const rolesClaim = options.rolesClaim ?? 'flowhook_roles';
  let current = options.people[0]?.accountId ?? '';
  // Made once the server listens (the issuer names its port); the server hands requests to it.
  const made: { provider?: Provider } = {};

  const server = createServer((req, res) => {
    if (!available) return void res.writeHead(503).end();
    const uid = /^\/interaction\/([^/?]+)/.exec(req.url ?? '')?.[1];
    if (uid)
      return void completeInteraction(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    void made.provider!.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        token_endpoint_auth_method: 'none',
        redirect_uris: [options.redirectUri],
        grant_types: refreshTokens ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk] },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], flowhook: [rolesClaim] },
    scopes: ['openid', 'profile', 'flowhook'],
    // The roles belong in the ID token: the console reads no userinfo.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // As Keycloak and others do: a refresh token for a client allowed the grant, offline_access or not.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, accountId) => {
      const person = people.find((candidate) => candidate.accountId === accountId);
      if (!person) return undefined;
      return {
        accountId,
        claims: () => ({
          sub: accountId,
          name: person.name,
          preferred_username: person.name,
          [rolesClaim]: person.roles,
        }),
      };
    },
  });
  made.provider = provider;
  provider.on('grant.success', (ctx) => {
    if (ctx.oidc.params?.grant_type === 'refresh_token') refreshes.granted++;
  });
  provider.on('grant.error', (ctx) => {
    if (ctx.oidc.params?.grant_type === 'refresh_token') refreshes.refused++;
  });

  async function completeInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: current } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
    grant!.addOIDCScope(String(details.params.scope));
    grant!.addOIDCClaims([rolesClaim, 'name', 'preferred_username']);
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await grant!.save() } },
      { mergeWithLastSubmission: true },
    );
  }

  return {
    issuer,
    signInAs(accountId) {
      current = accountId;
    },
    setRoles(accountId, roles) {
      people.find((candidate) => candidate.accountId === accountId)!.roles = roles;
    },
    removePerson(accountId) {
      people.splice(
        people.findIndex((candidate) => candidate.accountId === accountId),
        1,
      );
    },
    refreshes: () => ({ ...refreshes }),
    setAvailable(now) {
      available = now;
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
