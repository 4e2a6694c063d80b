// Which verified tokens count as an application's (client credentials) and
// which as a user's or an id token, per identity provider, with the claim
// shapes each provider issues (facade/oauth/token-kind.ts explains the rules).
import test from 'ava';
import type { JWTPayload } from 'jose';
import { classifyToken, type TokenHeader } from '../../facade/oauth/token-kind.ts';

const JWT: TokenHeader = { typ: 'JWT' };
const AT_JWT: TokenHeader = { typ: 'at+jwt' };
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '8f3c4a2e-5b1d-4c6e-9a7f-0e2d1c3b4a59';
const API = '11111111-2222-3333-4444-555555555555';

const rule = (header: TokenHeader, claims: JWTPayload) => {
  const kind = classifyToken(header, claims);
  return kind === 'application' ? kind : kind.delegated;
};

test('Microsoft Entra ID: app-only tokens (roles, idtyp app) pass; scp or a user idtyp is delegated', (t) => {
  const v1App = {
    iss: `https://sts.windows.net/${TENANT}/`,
    aud: 'api://flowhook',
    appid: CLIENT,
    tid: TENANT,
    oid: 'sp-1',
    sub: 'sp-1',
    idtyp: 'app',
    roles: ['Flows.Invoke'],
    ver: '1.0',
  };
  const v2App = {
    iss: `https://login.microsoftonline.com/${TENANT}/v2.0`,
    aud: API,
    azp: CLIENT,
    azpacr: '1',
    tid: TENANT,
    oid: 'sp-1',
    sub: 'sp-1',
    ver: '2.0',
  };
  t.is(rule(JWT, v1App), 'application');
  t.is(rule(JWT, v2App), 'application', 'no app roles assigned: no roles claim, still an app token');
  t.is(rule(JWT, { ...v2App, roles: ['Flows.Invoke'] }), 'application');
  t.is(
    rule(JWT, { ...v1App, idtyp: undefined, roles: undefined, scp: 'user_impersonation', upn: 'alice@contoso.test' }),
    'entra_scp',
  );
  t.is(rule(JWT, { ...v2App, scp: 'Flows.Invoke', name: 'Alice' }), 'entra_scp');
  t.is(rule(JWT, { ...v2App, idtyp: 'user' }), 'entra_idtyp');
  t.is(
    rule(JWT, { ...v2App, preferred_username: 'alice@contoso.test' }),
    'keycloak_user',
    'an end-user name is a user, whichever provider',
  );
  t.is(rule(JWT, { ...v2App, aud: CLIENT, nonce: 'n-1', aio: 'x' }), 'id_token_claims', 'an id token');
  t.is(
    rule(JWT, { ...v2App, aud: CLIENT }),
    'id_token_audience',
    'issued to the client itself: an id token, not an access token',
  );
});

test("Keycloak: a service account passes; a real user, another client's service account and id tokens do not", (t) => {
  const service = {
    iss: 'https://kc.example.test/realms/acme',
    aud: 'flowhook',
    azp: 'erp-connector',
    sub: 'a4c8-uuid',
    typ: 'Bearer',
    preferred_username: 'service-account-erp-connector',
    client_id: 'erp-connector',
    scope: 'profile email',
  };
  t.is(rule(JWT, service), 'application');
  t.is(
    rule(JWT, { ...service, azp: 'ERP-Connector', client_id: 'ERP-Connector' }),
    'application',
    'Keycloak lower-cases the user name',
  );
  t.is(rule(AT_JWT, service), 'application', 'an at+jwt service-account token: the Keycloak rule vouches for its sub');
  t.is(rule(JWT, { ...service, preferred_username: 'alice', sid: 's-1', session_state: 's-1' }), 'keycloak_user');
  t.is(
    rule(JWT, { ...service, preferred_username: 'service-account-other-client' }),
    'keycloak_user',
    "not this client's service account",
  );
  t.is(rule(JWT, { ...service, typ: 'ID' }), 'keycloak_id_token');
  t.is(rule(JWT, { ...service, preferred_username: 'alice', aud: 'erp-connector', at_hash: 'h' }), 'id_token_claims');
});

test('Auth0: gty client-credentials with sub <client>@clients passes; user grants and user subjects do not', (t) => {
  const machine = {
    iss: 'https://acme.eu.auth0.com/',
    aud: 'https://flowhook.example.test',
    azp: 'AbC123',
    sub: 'AbC123@clients',
    gty: 'client-credentials',
    scope: 'invoke',
  };
  t.is(rule(JWT, machine), 'application');
  t.is(
    rule(AT_JWT, { ...machine, client_id: 'AbC123' }),
    'application',
    'the RFC 9068 profile keeps sub <client>@clients',
  );
  t.is(rule(JWT, { ...machine, gty: 'password', sub: 'auth0|6543' }), 'auth0_grant');
  t.is(
    rule(JWT, { ...machine, gty: undefined, sub: 'auth0|6543' }),
    'auth0_user',
    'authorization code: no gty, a user subject',
  );
  t.is(rule(JWT, { ...machine, gty: undefined, sub: 'google-oauth2|1234' }), 'auth0_user');
  t.is(rule(JWT, { ...machine, sub: 'OtherClient@clients' }), 'auth0_user', "another client's subject");
  t.is(rule(JWT, { ...machine, gty: undefined }), 'application', 'an @clients subject of this client without gty');
});

test('Amazon Cognito: client-credentials access tokens pass; user access tokens and id tokens do not', (t) => {
  const machine = {
    iss: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Abc',
    sub: '3n4b5urk1ft4fl3mg5e62d9ado',
    client_id: '3n4b5urk1ft4fl3mg5e62d9ado',
    token_use: 'access',
    scope: 'flowhook/invoke',
    auth_time: 1,
    version: 2,
    jti: 'j',
  };
  t.is(rule(JWT, machine), 'application');
  t.is(rule(JWT, { ...machine, sub: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', username: 'alice' }), 'cognito_user');
  t.is(rule(JWT, { ...machine, 'cognito:groups': ['admins'] }), 'cognito_user');
  t.is(
    rule(JWT, { ...machine, sub: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee' }),
    'cognito_user',
    'a subject other than the client',
  );
  const idToken = {
    iss: machine.iss,
    sub: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
    aud: machine.client_id,
    token_use: 'id',
    'cognito:username': 'alice',
    email: 'a@example.test',
  };
  t.is(rule(JWT, idToken), 'cognito_token_use');
  t.is(rule(JWT, { ...machine, token_use: 'refresh' }), 'cognito_token_use');
});

test('generic RFC 9068 and OIDC: at+jwt with sub = client passes; id tokens and at+jwt user subjects do not', (t) => {
  const clientCredentials = {
    iss: 'https://idp.example.test',
    aud: 'api://flowhook',
    client_id: 'erp',
    sub: 'erp',
    jti: 'j',
    scope: '',
  };
  t.is(rule(AT_JWT, clientCredentials), 'application');
  t.is(rule({ typ: 'application/at+jwt' }, clientCredentials), 'application');
  t.is(
    rule(AT_JWT, { ...clientCredentials, sub: undefined }),
    'application',
    'no subject at all (IdentityServer-style)',
  );
  t.is(rule(AT_JWT, { ...clientCredentials, sub: 'user-42' }), 'rfc9068_subject');
  t.is(
    rule(AT_JWT, { ...clientCredentials, aud: 'erp' }),
    'application',
    'at+jwt is an access token even for its own client',
  );
  t.is(rule(JWT, { ...clientCredentials, sub: 'user-42' }), 'application', 'without at+jwt the subject proves nothing');
  const idToken = { iss: 'https://idp.example.test', aud: 'erp', azp: 'erp', sub: 'user-42', auth_time: 1 };
  t.is(rule(JWT, idToken), 'id_token_audience');
  t.is(rule({}, idToken), 'id_token_audience', 'no typ header at all');
  t.is(rule(JWT, { ...idToken, aud: ['erp', 'api://flowhook'] }), 'id_token_audience');
  t.is(rule(AT_JWT, { ...clientCredentials, nonce: 'n' }), 'id_token_claims');
  t.is(rule(AT_JWT, { ...clientCredentials, c_hash: 'h' }), 'id_token_claims');
  t.is(
    rule(AT_JWT, { ...clientCredentials, client_id: undefined, sub: 'user-42' }),
    'application',
    'no client id to compare with: left to token_client_id_missing',
  );
});
