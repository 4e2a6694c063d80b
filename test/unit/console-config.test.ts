// FLOWHOOK_CONSOLE_*: off unless a port is set, loopback unless TLS (or
// FLOWHOOK_CONSOLE_INSECURE), OpenID Connect all or nothing.
import test from 'ava';
import { readConsoleConfig as consoleConfigOf } from '../../engine/console/console-config.ts';
import { readSettings } from '../../common/configuration/read-settings.ts';

const plain = { tls: undefined };
const readConsoleConfig = (env: Record<string, string>, engine = plain as Parameters<typeof consoleConfigOf>[1]) => consoleConfigOf(readSettings(env, 'engine'), engine);

test('off unless FLOWHOOK_CONSOLE_PORT is set (or when it is off); its other settings without it are refused', (t) => {
  t.is(readConsoleConfig({}), undefined);
  t.is(readConsoleConfig({ FLOWHOOK_CONSOLE_PORT: 'off' }), undefined);
  t.throws(() => readConsoleConfig({ FLOWHOOK_CONSOLE_OIDC_ISSUER: 'https://id.example.com' }), { message: /set FLOWHOOK_CONSOLE_PORT/ });
});

test('defaults: loopback, eight-hour sessions, admin tokens only', (t) => {
  t.like(readConsoleConfig({ FLOWHOOK_CONSOLE_PORT: '7054' }), { host: '127.0.0.1', port: 7054, sessionTtlMs: 8 * 3_600_000, oidc: undefined, publicUrl: undefined });
  t.throws(() => readConsoleConfig({ FLOWHOOK_CONSOLE_PORT: '7054', FLOWHOOK_CONSOLE_SESSION_TTL: '30d' }), { message: /FLOWHOOK_CONSOLE_SESSION_TTL/ });
});

test('a non-loopback address needs TLS or FLOWHOOK_CONSOLE_INSECURE, and the refusal names both', (t) => {
  const env = { FLOWHOOK_CONSOLE_PORT: '7054', FLOWHOOK_CONSOLE_HOST: '0.0.0.0' };
  t.throws(() => readConsoleConfig(env), { message: /without TLS[\s\S]*FLOWHOOK_ENGINE_TLS_CERT[\s\S]*FLOWHOOK_CONSOLE_INSECURE=true/ });
  t.is(readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_INSECURE: 'true' })!.host, '0.0.0.0');
  t.is(readConsoleConfig(env, { tls: { cert: Buffer.from(''), key: Buffer.from('') } })!.host, '0.0.0.0');
});

test('OpenID Connect needs an https issuer (http on loopback) and a client id; openid is always asked for', (t) => {
  const env = { FLOWHOOK_CONSOLE_PORT: '7054', FLOWHOOK_CONSOLE_OIDC_ISSUER: 'https://id.example.com' };
  t.throws(() => readConsoleConfig(env), { message: /FLOWHOOK_CONSOLE_OIDC_CLIENT_ID is required/ });
  t.throws(() => readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_OIDC_ISSUER: 'http://id.example.com' }), { message: /FLOWHOOK_CONSOLE_OIDC_ISSUER must be an https URL/ });
  t.throws(() => readConsoleConfig({ FLOWHOOK_CONSOLE_PORT: '7054', FLOWHOOK_CONSOLE_OIDC_CLIENT_ID: 'console' }), { message: /need FLOWHOOK_CONSOLE_OIDC_ISSUER/ });
  const oidc = readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_OIDC_CLIENT_ID: 'console', FLOWHOOK_CONSOLE_OIDC_SCOPES: 'profile,groups' })!.oidc;
  t.like(oidc, { issuer: 'https://id.example.com', clientId: 'console', clientSecret: undefined, rolesClaim: 'flowhook_roles' });
  t.deepEqual(oidc!.scopes, ['openid', 'profile', 'groups']);
});
