// Codec server sessions and the pieces of a request they are read from.
import test from 'ava';
import { bearerToken } from '../../engine/edges/codec/codec-auth.ts';
import { browserCookie, cookieValue } from '../../engine/edges/http/browser-sessions.ts';
import { looksLikeJwt } from '../../engine/edges/codec/codec-oauth.ts';
import { CodecSessions } from '../../engine/edges/codec/codec-sessions.ts';
import { loginPage } from '../../engine/edges/codec/login-page.ts';

test('a session lasts its time to live, ends when closed, and is found only by its cookie value', (t) => {
  let now = 1_000_000;
  const sessions = new CodecSessions(60_000, () => now);
  const credential = { account: 'ops-admin', tokenHash: 'a'.repeat(64) };
  const { cookieValue: value, expiresAt } = sessions.open({ name: 'ops-admin', via: 'service-account' }, credential);
  t.is(expiresAt, now + 60_000);
  t.regex(value, /^[A-Za-z0-9_-]{43}$/);
  t.like(sessions.find(value), { operator: { name: 'ops-admin', via: 'session' }, credential });
  t.is(sessions.find(`${value}x`), undefined);
  now += 59_999;
  t.truthy(sessions.find(value));
  now += 1;
  t.is(sessions.find(value), undefined, 'expired');
  const other = sessions.open({ name: 'bootstrap-admin', via: 'service-account' }, undefined).cookieValue;
  t.is(sessions.find(other)!.credential, undefined);
  sessions.close(other);
  t.is(sessions.find(other), undefined);
});

test('a flood of sign-ins evicts the oldest sessions instead of growing', (t) => {
  const sessions = new CodecSessions(60_000);
  const credential = { account: 'a', tokenHash: 'a'.repeat(64) };
  const first = sessions.open({ name: 'a', via: 'service-account' }, credential).cookieValue;
  for (let i = 0; i < 1000; i++) sessions.open({ name: 'a', via: 'service-account' }, credential);
  t.is(sessions.find(first), undefined);
});

test('credentials are read from the Authorization and Cookie headers', (t) => {
  t.is(bearerToken('Bearer abc.def'), 'abc.def');
  t.is(bearerToken('bearer  fhsa_x '), 'fhsa_x');
  t.is(bearerToken('Basic abc'), undefined);
  t.is(bearerToken(undefined), undefined);
  t.is(cookieValue('a=1; flowhook_codec_session=xyz; b=2', 'flowhook_codec_session'), 'xyz');
  t.is(cookieValue('xflowhook_codec_session=xyz', 'flowhook_codec_session'), undefined);
  t.is(cookieValue('flowhook_codec_session=', 'flowhook_codec_session'), undefined);
  t.true(looksLikeJwt('eyJh.eyJz.c2ln'));
  t.false(looksLikeJwt('fhsa_abc'));
});

test('the login page escapes what it shows and carries no script', (t) => {
  const page = loginPage({
    codecUrl: 'http://127.0.0.1:8234"><script>x</script>',
    uiOrigins: ['http://127.0.0.1:8233'],
    signedInAs: { name: '<b>', until: new Date(0) },
  });
  t.false(page.includes('<script'));
  t.regex(page, /&#60;b&#62;/);
  t.regex(page, /Include cross-origin credentials/);
  t.regex(loginPage({ codecUrl: 'http://x', uiOrigins: [] }), /set FLOWHOOK_CODEC_ALLOWED_ORIGINS/);
});

test('our cookies are HttpOnly and Path=/, live in whole seconds, and are Secure over TLS', (t) => {
  const session = browserCookie('flowhook_codec_session', false);
  t.is(session.set('abc', 3_600_999), 'flowhook_codec_session=abc; Max-Age=3600; Path=/; HttpOnly; SameSite=Strict');
  t.is(session.clear(), 'flowhook_codec_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict');
  t.is(session.valueIn('a=1; flowhook_codec_session=abc'), 'abc');
  t.is(
    browserCookie('__Host-login', true, 'Lax').set('x', 600_000),
    '__Host-login=x; Max-Age=600; Path=/; HttpOnly; SameSite=Lax; Secure',
  );
});
