// FLOWHOOK_CODEC_*: off unless a port is set, loopback unless TLS (or the
// engine's deliberate INSECURE), exact origins only, OAuth all or nothing.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { readEngineConfig } from '../../engine/config.ts';
import { readCodecServerConfig as codecServerConfigOf } from '../../engine/edges/codec/codec-config.ts';
import { readSettings } from '../../common/configuration/read-settings.ts';

const plain = { tls: undefined, insecure: false };
type Engine = Parameters<typeof codecServerConfigOf>[1];
const readCodecServerConfig = (env: Record<string, string>, engine: Engine) =>
  codecServerConfigOf(readSettings(env, 'engine'), engine);
const readOrigins = (raw: string) =>
  readSettings({ FLOWHOOK_CODEC_ALLOWED_ORIGINS: raw }, 'engine').FLOWHOOK_CODEC_ALLOWED_ORIGINS;

test('off unless FLOWHOOK_CODEC_PORT is set (or when it is off)', (t) => {
  t.is(readCodecServerConfig({}, plain), undefined);
  t.is(readCodecServerConfig({ FLOWHOOK_CODEC_PORT: 'off' }, plain), undefined);
  t.throws(() => readCodecServerConfig({ FLOWHOOK_CODEC_ALLOWED_ORIGINS: 'http://127.0.0.1:8233' }, plain), {
    message: /set FLOWHOOK_CODEC_PORT/,
  });
  t.throws(() => readCodecServerConfig({ FLOWHOOK_CODEC_PORT: '80a' }, plain), {
    message: /FLOWHOOK_CODEC_PORT must be a port number/,
  });
});

test('defaults: loopback, no origin allowed, one-hour sessions', (t) => {
  const config = readCodecServerConfig({ FLOWHOOK_CODEC_PORT: '8234' }, plain)!;
  t.like(config, { host: '127.0.0.1', port: 8234, allowedOrigins: [], sessionTtlMs: 3_600_000, oauth: undefined });
  t.is(
    readCodecServerConfig({ FLOWHOOK_CODEC_PORT: '8234', FLOWHOOK_CODEC_SESSION_TTL: '15m' }, plain)!.sessionTtlMs,
    900_000,
  );
  t.throws(() => readCodecServerConfig({ FLOWHOOK_CODEC_PORT: '8234', FLOWHOOK_CODEC_SESSION_TTL: '30d' }, plain), {
    message: /FLOWHOOK_CODEC_SESSION_TTL/,
  });
});

test('a non-loopback address needs TLS or FLOWHOOK_ENGINE_INSECURE', (t) => {
  const env = { FLOWHOOK_CODEC_PORT: '8234', FLOWHOOK_CODEC_HOST: '0.0.0.0' };
  t.throws(() => readCodecServerConfig(env, plain), {
    message: /without TLS[\s\S]*FLOWHOOK_ENGINE_TLS_CERT[\s\S]*FLOWHOOK_ENGINE_INSECURE=true/,
  });
  t.is(readCodecServerConfig(env, { tls: undefined, insecure: true })!.host, '0.0.0.0');
  t.is(
    readCodecServerConfig(env, { tls: { cert: Buffer.from(''), key: Buffer.from('') }, insecure: false })!.host,
    '0.0.0.0',
  );
});

test('allowed origins are exact origins: no wildcard, no path', (t) => {
  t.deepEqual(readOrigins(' http://127.0.0.1:8233 , https://temporal.example.com/ '), [
    'http://127.0.0.1:8233',
    'https://temporal.example.com',
  ]);
  for (const bad of ['*', 'https://*.example.com', 'http://127.0.0.1:8233/ui', 'ftp://x', '127.0.0.1:8233']) {
    t.throws(() => readOrigins(bad), { message: /FLOWHOOK_CODEC_ALLOWED_ORIGINS/ }, bad);
  }
});

test('OAuth operators: issuer, audience and group together; https issuers (http on loopback only)', (t) => {
  const base = {
    FLOWHOOK_CODEC_PORT: '8234',
    FLOWHOOK_CODEC_OAUTH_ISSUER: 'https://login.example.com/tenant/v2.0',
    FLOWHOOK_CODEC_OAUTH_AUDIENCE: 'api://flowhook',
    FLOWHOOK_CODEC_OAUTH_GROUP: 'ops',
  };
  t.deepEqual(readCodecServerConfig(base, plain)!.oauth, {
    issuer: base.FLOWHOOK_CODEC_OAUTH_ISSUER,
    jwksUri: undefined,
    audiences: ['api://flowhook'],
    group: 'ops',
    groupClaim: 'groups',
  });
  t.is(
    readCodecServerConfig({ ...base, FLOWHOOK_CODEC_OAUTH_GROUP_CLAIM: 'roles' }, plain)!.oauth!.groupClaim,
    'roles',
  );
  t.throws(() => readCodecServerConfig({ ...base, FLOWHOOK_CODEC_OAUTH_GROUP: '' }, plain), {
    message: /FLOWHOOK_CODEC_OAUTH_GROUP is required/,
  });
  t.throws(() => readCodecServerConfig({ ...base, FLOWHOOK_CODEC_OAUTH_AUDIENCE: '' }, plain), {
    message: /FLOWHOOK_CODEC_OAUTH_AUDIENCE is required/,
  });
  t.throws(() => readCodecServerConfig({ ...base, FLOWHOOK_CODEC_OAUTH_ISSUER: 'http://idp.example.com' }, plain), {
    message: /must be an https URL/,
  });
  t.truthy(readCodecServerConfig({ ...base, FLOWHOOK_CODEC_OAUTH_ISSUER: 'http://127.0.0.1:9000' }, plain)!.oauth);
  t.throws(() => readCodecServerConfig({ FLOWHOOK_CODEC_PORT: '8234', FLOWHOOK_CODEC_OAUTH_GROUP: 'ops' }, plain), {
    message: /need FLOWHOOK_CODEC_OAUTH_ISSUER/,
  });
});

test('the engine refuses a codec server without the payload key it decrypts with', (t) => {
  const env = { FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', FLOWHOOK_CODEC_PORT: '8234' };
  t.throws(() => readEngineConfig(env), { message: /FLOWHOOK_CODEC_PORT is set but FLOWHOOK_PAYLOAD_KEY is not/ });
  t.is(readEngineConfig({ ...env, FLOWHOOK_PAYLOAD_KEY: randomBytes(32).toString('base64') }).codec!.port, 8234);
  t.is(readEngineConfig({ FLOWHOOK_DATABASE_URL: env.FLOWHOOK_DATABASE_URL }).codec, undefined);
});
