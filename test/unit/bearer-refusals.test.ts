// The Bearer verifier tells operators why it refused a token: against a key
// set served over HTTP on loopback, each kind of bad token yields its own
// reason code, with the client id only where the signature held.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import test from 'ava';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWTPayload } from 'jose';
import pino from 'pino';
import type { CallerVerifier, Verification } from '../../facade/caller-credentials.ts';
import { bearerVerifier } from '../../facade/oauth/bearer-verifier.ts';

const ISSUER = 'https://idp.example.test/tenant/v2.0';
const AUDIENCE = 'api://flowhook';
const CLIENT = 'erp-connector';
const KID = 'key-1';

let server: Server;
let signingKey: CryptoKey;
let verifier: CallerVerifier;
/** The same issuer with the age limit lifted (FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS=0). */
let unlimitedAge: CallerVerifier;
const MAX_AGE = 3600;
const logLines: string[] = [];

test.before(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  signingKey = privateKey;
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' }] });
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys`;
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  verifier = bearerVerifier(
    {
      issuers: [{ issuer: ISSUER, jwksUri }],
      audiences: [AUDIENCE],
      clockToleranceSeconds: 60,
      maxTokenAgeSeconds: MAX_AGE,
    },
    logger,
  );
  unlimitedAge = bearerVerifier(
    { issuers: [{ issuer: ISSUER, jwksUri }], audiences: [AUDIENCE], clockToleranceSeconds: 60, maxTokenAgeSeconds: 0 },
    logger,
  );
});
test.after.always(() => new Promise<void>((resolve) => server.close(() => resolve())));

const now = () => Math.floor(Date.now() / 1000);

/** A token with the claims given; `undefined` leaves a claim out. */
function sign(
  claims: JWTPayload,
  options: { key?: CryptoKey | Uint8Array; alg?: string; kid?: string } = {},
): Promise<string> {
  const payload: JWTPayload = {
    iss: ISSUER,
    aud: AUDIENCE,
    iat: now() - 10,
    exp: now() + 300,
    client_id: CLIENT,
    ...claims,
  };
  for (const name of Object.keys(payload)) if (payload[name] === undefined) delete payload[name];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? KID })
    .sign(options.key ?? signingKey);
}

async function refusal(
  token: string,
  by: CallerVerifier = verifier,
): Promise<Extract<Verification, { refused: unknown }>['refused'] | undefined> {
  const verification = await by.verify(`Bearer ${token}`);
  return 'refused' in verification ? verification.refused : undefined;
}

test('a good application token is accepted', async (t) => {
  const verification = await verifier.verify(`Bearer ${await sign({})}`);
  t.true('caller' in verification);
});

test('tokens that cannot be read are malformed credentials', async (t) => {
  t.deepEqual(await verifier.verify('Bearer two words'), { refused: { reason: 'malformed_credentials' } });
  t.deepEqual(await refusal('not-a-jwt'), { reason: 'malformed_credentials' });
});

test('an issuer outside the list is untrusted, named as the token claims it', async (t) => {
  t.deepEqual(await refusal(await sign({ iss: 'https://sts.windows.net/tenant/' })), {
    reason: 'token_issuer_untrusted',
    issuer: 'https://sts.windows.net/tenant/',
  });
  t.deepEqual(await refusal(await sign({ iss: undefined })), { reason: 'token_issuer_untrusted', issuer: undefined });
});

test('claim failures after a good signature name the reason and the client id', async (t) => {
  t.deepEqual(await refusal(await sign({ exp: now() - 120 })), {
    reason: 'token_expired',
    issuer: ISSUER,
    clientId: CLIENT,
  });
  t.deepEqual(await refusal(await sign({ nbf: now() + 600 })), {
    reason: 'token_not_yet_valid',
    issuer: ISSUER,
    clientId: CLIENT,
  });
  t.deepEqual(await refusal(await sign({ aud: 'https://other-api.test' })), {
    reason: 'token_audience_mismatch',
    issuer: ISSUER,
    clientId: CLIENT,
  });
  t.deepEqual(await refusal(await sign({ aud: undefined })), {
    reason: 'token_audience_mismatch',
    issuer: ISSUER,
    clientId: CLIENT,
  });
  t.deepEqual(await refusal(await sign({ exp: undefined })), {
    reason: 'token_invalid',
    issuer: ISSUER,
    clientId: CLIENT,
  });
  t.deepEqual(await refusal(await sign({ nbf: 'tomorrow' as never })), {
    reason: 'token_invalid',
    issuer: ISSUER,
    clientId: CLIENT,
  });
});

test('a token issued longer ago than the maximum age is too old, though its exp has not passed', async (t) => {
  // Issued two hours ago, valid for another hour: an identity provider handing out long-lived tokens.
  const old = await sign({ iat: now() - 2 * MAX_AGE, exp: now() + MAX_AGE });
  t.deepEqual(await refusal(old), { reason: 'token_too_old', issuer: ISSUER, clientId: CLIENT });
  t.deepEqual(
    await refusal(await sign({ iat: undefined })),
    { reason: 'token_too_old', issuer: ISSUER, clientId: CLIENT },
    'no iat: its age cannot be shown',
  );
  t.is(await refusal(await sign({ iat: now() - MAX_AGE + 60 })), undefined, 'younger than the limit');
  t.deepEqual(
    await refusal(await sign({ iat: now() + 600 })),
    { reason: 'token_invalid', issuer: ISSUER, clientId: CLIENT },
    'issued in the future beyond the tolerance',
  );
  t.is(await refusal(old, unlimitedAge), undefined, 'FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS=0 lifts the limit');
  t.is(await refusal(await sign({ iat: undefined }), unlimitedAge), undefined);
});

test('signature, key and algorithm failures never name a client id', async (t) => {
  const { privateKey: stranger } = await generateKeyPair('RS256');
  t.deepEqual(await refusal(await sign({}, { key: stranger })), {
    reason: 'token_signature_invalid',
    issuer: ISSUER,
    clientId: undefined,
  });
  const [header, , signature] = (await sign({})).split('.');
  const altered = Buffer.from(
    JSON.stringify({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300, client_id: 'someone-else' }),
  ).toString('base64url');
  t.deepEqual(await refusal(`${header}.${altered}.${signature}`), {
    reason: 'token_signature_invalid',
    issuer: ISSUER,
    clientId: undefined,
  });
  t.deepEqual(await refusal(await sign({}, { key: stranger, kid: 'unknown-kid' })), {
    reason: 'token_key_unknown',
    issuer: ISSUER,
    clientId: undefined,
  });
  t.deepEqual(await refusal(await sign({}, { key: new TextEncoder().encode('s'.repeat(32)), alg: 'HS256' })), {
    reason: 'token_algorithm_refused',
    issuer: ISSUER,
    clientId: undefined,
  });
  const unsigned = new UnsecuredJWT({ client_id: CLIENT })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime('5m')
    .encode();
  t.deepEqual(await refusal(unsigned), { reason: 'token_algorithm_refused', issuer: ISSUER, clientId: undefined });
});

test('user tokens and tokens without a client id are not application callers', async (t) => {
  t.deepEqual(await refusal(await sign({ scp: 'user_impersonation' })), {
    reason: 'token_delegated',
    tokenRule: 'entra_scp',
    issuer: ISSUER,
    clientId: CLIENT,
  });
  t.deepEqual(await refusal(await sign({ nonce: 'n-1' })), {
    reason: 'token_delegated',
    tokenRule: 'id_token_claims',
    issuer: ISSUER,
    clientId: CLIENT,
  });
  t.deepEqual(await refusal(await sign({ client_id: undefined, sub: 'someone' })), {
    reason: 'token_client_id_missing',
    issuer: ISSUER,
  });
});

test.after('the verifier itself logs no refusal (the error mapping writes the one line)', (t) => {
  t.deepEqual(logLines, []);
});
