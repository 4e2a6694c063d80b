// A real OpenID Connect provider for the console's sign-in tests:
// oidc-provider on a loopback port with one public client (authorization code,
// PKCE required) and people whose ID tokens carry a roles claim. Its login and
// consent steps complete at once for the person the test names (the tests
// are about the console's side of the flow, not a login form).
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
  close(): Promise<void>;
}

export async function startOidcProvider(options: { clientId: string; redirectUri: string; people: TestPerson[]; rolesClaim?: string }): Promise<TestOidcProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'console-test', alg: 'RS256', use: 'sig' };
  const rolesClaim = options.rolesClaim ?? 'flowhook_roles';
  let current = options.people[0]?.accountId ?? '';
  // Made once the server listens (the issuer names its port); the server hands requests to it.
  const made: { provider?: Provider } = {};

  const server = createServer((req, res) => {
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
      { client_id: options.clientId, token_endpoint_auth_method: 'none', redirect_uris: [options.redirectUri], grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    jwks: { keys: [jwk] },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], flowhook: [rolesClaim] },
    scopes: ['openid', 'profile', 'flowhook'],
    // The roles belong in the ID token: the console reads no userinfo.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, accountId) => {
      const person = options.people.find((candidate) => candidate.accountId === accountId);
      if (!person) return undefined;
      return { accountId, claims: () => ({ sub: accountId, name: person.name, preferred_username: person.name, [rolesClaim]: person.roles }) };
    },
  });
  made.provider = provider;

  async function completeInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: current } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
    grant!.addOIDCScope(String(details.params.scope));
    grant!.addOIDCClaims([rolesClaim, 'name', 'preferred_username']);
    await provider.interactionFinished(req, res, { consent: { grantId: await grant!.save() } }, { mergeWithLastSubmission: true });
  }

  return {
    issuer,
    signInAs(accountId) {
      current = accountId;
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
