// The pure parts of a callback URL and of callback_wait's lookups: the token's
// shape, the URL, and the digests stored instead of tokens, keys and bodies.
import { createHash } from 'node:crypto';
import test from 'ava';
import { callbackUrl, isCallbackTokenShape, mintCallbackToken } from '../../engine/domain/callbacks/callback-tokens.ts';
import { bodyDigest, keyLookup, sameDigest, tokenLookup } from '../../engine/domain/callbacks/callback-digests.ts';

const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 8);

test('a token is 43 characters of base64url (32 random bytes), a new one each time', (t) => {
  const tokens = new Set(Array.from({ length: 200 }, () => mintCallbackToken()));
  t.is(tokens.size, 200);
  for (const token of tokens) {
    t.regex(token, /^[A-Za-z0-9_-]{43}$/);
    t.is(Buffer.from(token, 'base64url').length, 32);
    t.true(isCallbackTokenShape(token));
  }
});

test('anything but the token shape is not one: shorter, longer, padded, other alphabets, path tricks', (t) => {
  const token = mintCallbackToken();
  for (const text of [
    '',
    'not-a-token',
    token.slice(1),
    `${token}A`,
    `${token.slice(1)}=`,
    `${token.slice(1)}+`,
    `${token.slice(1)}/`,
    `${token.slice(2)}..`,
    ` ${token.slice(1)}`,
    `${token.slice(1)}\n`,
  ]) {
    t.false(isCallbackTokenShape(text), JSON.stringify(text));
  }
});

test('the URL is the public URL, the instance and the token, and only URL-safe characters follow the host', (t) => {
  const token = mintCallbackToken();
  const url = callbackUrl({ publicUrl: 'https://hooks.example.com', instance: 'BC' }, token);
  t.is(url, `https://hooks.example.com/BC/callbacks/${token}`);
  t.is(encodeURIComponent(token), token);
  t.is(new URL(url).pathname, `/BC/callbacks/${token}`);
});

test('a token is looked up by t: and its SHA-256; the token itself is not in the lookup', (t) => {
  const token = mintCallbackToken();
  const lookup = tokenLookup(token);
  t.is(lookup, `t:${createHash('sha256').update(token).digest('hex')}`);
  t.false(lookup.includes(token));
  t.not(tokenLookup(mintCallbackToken()), lookup);
});

test('a key is looked up by k: and a keyed HMAC of company, lower-cased activity and key', (t) => {
  const lookup = keyLookup(key, { company: 'Acme', activity: 'Orders.Ship', key: 'ORD-1' });
  t.regex(lookup, /^k:[0-9a-f]{64}$/);
  t.false(lookup.includes('ORD-1'));
  t.is(
    keyLookup(key, { company: 'Acme', activity: 'orders.ship', key: 'ORD-1' }),
    lookup,
    'activities match case-insensitively',
  );
  t.not(keyLookup(key, { company: 'acme', activity: 'orders.ship', key: 'ORD-1' }), lookup, 'companies exactly');
  t.not(keyLookup(key, { company: 'Acme', activity: 'orders.ship', key: 'ord-1' }), lookup, 'keys exactly');
  t.not(keyLookup(key, { company: 'Acme', activity: 'orders.other', key: 'ORD-1' }), lookup);
  t.not(
    keyLookup(otherKey, { company: 'Acme', activity: 'orders.ship', key: 'ORD-1' }),
    lookup,
    'another deployment key, another lookup',
  );
  t.not(keyLookup(key, { company: 'Acme', activity: 'orders.ship', key: 'ORD-1' }), tokenLookup('ORD-1'));
});

test('a body digest is keyed and bound to its execution and step; equal texts compare equal', (t) => {
  const where = { executionId: 'pay:0f8fad5b-d9cb-469f-a165-70867728950e', step: 'payment' };
  const digest = bodyDigest(key, where, '{"status":"ok"}');
  t.regex(digest, /^[0-9a-f]{64}$/);
  t.is(bodyDigest(key, where, '{"status":"ok"}'), digest);
  t.not(bodyDigest(key, where, '{"status": "ok"}'), digest, 'byte for byte: white space counts');
  t.not(bodyDigest(key, { ...where, step: 'other' }, '{"status":"ok"}'), digest);
  t.not(bodyDigest(key, { ...where, executionId: 'pay:other' }, '{"status":"ok"}'), digest);
  t.not(bodyDigest(otherKey, where, '{"status":"ok"}'), digest);
  t.true(sameDigest(digest, bodyDigest(key, where, '{"status":"ok"}')));
  t.false(sameDigest(digest, bodyDigest(key, where, '{}')));
  t.false(sameDigest(null, digest));
  t.false(sameDigest(undefined, digest));
  t.false(sameDigest(digest.slice(1), digest));
});
