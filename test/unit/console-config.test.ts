// FLOWHOOK_CONSOLE_*: off unless a port is set; loopback unless an https
// public URL and TLS (or FLOWHOOK_CONSOLE_INSECURE behind a TLS proxy) say
// otherwise; sessions of at most twelve hours; OpenID Connect all or nothing.
import test from 'ava';
import { readConsoleConfig as consoleConfigOf } from '../../engine/edges/console/console-config.ts';
import { readSettings } from '../../common/configuration/read-settings.ts';

const plain = { tls: undefined };
const readConsoleConfig = (env: Record<string, string>, engine = plain as Parameters<typeof consoleConfigOf>[1]) =>
  consoleConfigOf(readSettings(env, 'engine'), engine);

test('off unless FLOWHOOK_CONSOLE_PORT is set (or when it is off); its other settings without it are refused', (t) => {
  t.is(readConsoleConfig({}), undefined);
  t.is(readConsoleConfig({ FLOWHOOK_CONSOLE_PORT: 'off' }), undefined);
  t.throws(() => readConsoleConfig({ FLOWHOOK_CONSOLE_OIDC_ISSUER: 'https://id.example.com' }), {
    message: /set FLOWHOOK_CONSOLE_PORT/,
  });
});

test('defaults: loopback, eight-hour sessions, roles re-read hourly, admin tokens only', (t) => {
  t.like(readConsoleConfig({ FLOWHOOK_CONSOLE_PORT: '7054' }), {
    host: '127.0.0.1',
    port: 7054,
    sessionTtlMs: 8 * 3_600_000,
    oidcRecheckMs: 3_600_000,
    oidc: undefined,
    publicUrl: undefined,
  });
  t.throws(() => readConsoleConfig({ FLOWHOOK_CONSOLE_PORT: '7054', FLOWHOOK_CONSOLE_SESSION_TTL: '30d' }), {
    message: /FLOWHOOK_CONSOLE_SESSION_TTL/,
  });
});

test('a session lasts twelve hours at most, and its OpenID Connect roles are at most an hour old', (t) => {
  const env = { FLOWHOOK_CONSOLE_PORT: '7054' };
  t.is(readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_SESSION_TTL: '12h' })!.sessionTtlMs, 12 * 3_600_000);
  t.throws(() => readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_SESSION_TTL: '13h' }), {
    message: /FLOWHOOK_CONSOLE_SESSION_TTL must be a duration from 1m to 12h/,
  });
  t.throws(() => readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_SESSION_TTL: '7d' }), {
    message: /FLOWHOOK_CONSOLE_SESSION_TTL/,
  });
  t.is(readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_OIDC_RECHECK: '15m' })!.oidcRecheckMs, 15 * 60_000);
  t.throws(() => readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_OIDC_RECHECK: '2h' }), {
    message: /FLOWHOOK_CONSOLE_OIDC_RECHECK/,
  });
});

test('beyond loopback the console needs an https public URL — the one origin it answers — and the refusal names the setting', (t) => {
  const env = { FLOWHOOK_CONSOLE_PORT: '7054', FLOWHOOK_CONSOLE_HOST: '0.0.0.0' };
  const tls = { tls: { cert: Buffer.from(''), key: Buffer.from('') } };
  // Cleartext behind a proxy, or the engine's own certificate: without a public URL the origin would come from the Host header.
  t.throws(() => readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_INSECURE: 'true' }), {
    message: /no FLOWHOOK_CONSOLE_PUBLIC_URL[\s\S]*Set FLOWHOOK_CONSOLE_PUBLIC_URL to the https URL/,
  });
  t.throws(() => readConsoleConfig(env, tls), { message: /no FLOWHOOK_CONSOLE_PUBLIC_URL/ });
  // An http public URL is for loopback only.
  t.throws(
    () =>
      readConsoleConfig({
        ...env,
        FLOWHOOK_CONSOLE_INSECURE: 'true',
        FLOWHOOK_CONSOLE_PUBLIC_URL: 'http://console.example.com',
      }),
    {
      message: /FLOWHOOK_CONSOLE_PUBLIC_URL must be an https URL \(http only on a loopback host\)/,
    },
  );
  t.throws(
    () =>
      readConsoleConfig({
        ...env,
        FLOWHOOK_CONSOLE_INSECURE: 'true',
        FLOWHOOK_CONSOLE_PUBLIC_URL: 'http://127.0.0.1:7054',
      }),
    {
      message: /FLOWHOOK_CONSOLE_PUBLIC_URL http:\/\/127\.0\.0\.1:7054[\s\S]*over https/,
    },
  );
  const proxied = readConsoleConfig({
    ...env,
    FLOWHOOK_CONSOLE_INSECURE: 'true',
    FLOWHOOK_CONSOLE_PUBLIC_URL: 'https://console.example.com',
  })!;
  t.like(proxied, { host: '0.0.0.0', publicUrl: 'https://console.example.com', tls: undefined });
  t.is(readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_PUBLIC_URL: 'https://console.example.com' }, tls)!.host, '0.0.0.0');
});

test('beyond loopback the listener itself needs TLS, or FLOWHOOK_CONSOLE_INSECURE behind a proxy that terminates it, and the refusal names both', (t) => {
  const env = {
    FLOWHOOK_CONSOLE_PORT: '7054',
    FLOWHOOK_CONSOLE_HOST: '0.0.0.0',
    FLOWHOOK_CONSOLE_PUBLIC_URL: 'https://console.example.com',
  };
  t.throws(() => readConsoleConfig(env), {
    message: /without TLS[\s\S]*FLOWHOOK_ENGINE_TLS_CERT[\s\S]*FLOWHOOK_CONSOLE_INSECURE=true/,
  });
  // On loopback (a proxy on the same machine) an https public URL needs neither.
  t.is(readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_HOST: '127.0.0.1' })!.publicUrl, 'https://console.example.com');
});

test('OpenID Connect needs an https issuer (http on loopback) and a client id; openid is always asked for', (t) => {
  const env = { FLOWHOOK_CONSOLE_PORT: '7054', FLOWHOOK_CONSOLE_OIDC_ISSUER: 'https://id.example.com' };
  t.throws(() => readConsoleConfig(env), { message: /FLOWHOOK_CONSOLE_OIDC_CLIENT_ID is required/ });
  t.throws(() => readConsoleConfig({ ...env, FLOWHOOK_CONSOLE_OIDC_ISSUER: 'http://id.example.com' }), {
    message: /FLOWHOOK_CONSOLE_OIDC_ISSUER must be an https URL/,
  });
  t.throws(() => readConsoleConfig({ FLOWHOOK_CONSOLE_PORT: '7054', FLOWHOOK_CONSOLE_OIDC_CLIENT_ID: 'console' }), {
    message: /need FLOWHOOK_CONSOLE_OIDC_ISSUER/,
  });
  const oidc = readConsoleConfig({
    ...env,
    FLOWHOOK_CONSOLE_OIDC_CLIENT_ID: 'console',
    FLOWHOOK_CONSOLE_OIDC_SCOPES: 'profile,groups',
  })!.oidc;
  t.like(oidc, {
    issuer: 'https://id.example.com',
    clientId: 'console',
    clientSecret: undefined,
    rolesClaim: 'flowhook_roles',
  });
  t.deepEqual(oidc!.scopes, ['openid', 'profile', 'groups']);
});
