// The secret store's envelope encryption and keyring: round trips, binding to
// the row, re-wrapping under a new key (a whole envelope, or only its head, as
// the rotation does for delivery bodies), and errors that never quote a key.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRequest, sealRequest } from '../../engine/domain/deliveries/delivery-body.ts';
import {
  decryptSecret,
  encryptSecret,
  ENVELOPE_HEAD_MAX,
  envelopeKeyId,
  rewrapEnvelopeHead,
  rewrapSecret,
} from '../../engine/infrastructure/secret-store/envelope-encryption.ts';
import { rewrapDeliveryHeads } from '../../engine/infrastructure/secret-store/key-rotation.ts';
import {
  KeyringError,
  SecretKeyring,
  keyId,
  keySourceFromEnv,
} from '../../engine/infrastructure/secret-store/secret-keyring.ts';

const newKey = () => randomBytes(32).toString('base64');

test('a secret round-trips, and its ciphertext holds neither the secret nor the key', (t) => {
  const key = newKey();
  const keyring = new SecretKeyring({ kind: 'env', keys: [key] });
  const envelope = encryptSecret(keyring, 'api-key-123', 'connection:a');
  t.false(envelope.includes('api-key-123'));
  t.false(envelope.includes(key));
  t.regex(envelope, /^fh1\.[0-9a-f]{16}\./);
  t.is(envelopeKeyId(envelope), keyId(Buffer.from(key, 'base64')));
  t.is(decryptSecret(keyring, envelope, 'connection:a'), 'api-key-123');
  t.not(encryptSecret(keyring, 'api-key-123', 'connection:a'), envelope, 'a fresh data key and IV every time');
});

test('a ciphertext moved to another row does not decrypt', (t) => {
  const keyring = new SecretKeyring({ kind: 'env', keys: [newKey()] });
  const envelope = encryptSecret(keyring, 's3cret', 'connection:a');
  t.throws(() => decryptSecret(keyring, envelope, 'connection:b'), {
    instanceOf: KeyringError,
    message: /does not decrypt/,
  });
});

test('rotation re-wraps under the newest key; the old key can then go', (t) => {
  const oldKey = newKey();
  const newer = newKey();
  const envelope = encryptSecret(new SecretKeyring({ kind: 'env', keys: [oldKey] }), 'value', 'ctx');
  const both = new SecretKeyring({ kind: 'env', keys: [newer, oldKey] });
  t.is(decryptSecret(both, envelope, 'ctx'), 'value', 'older keys still unwrap');
  const rewrapped = rewrapSecret(both, envelope)!;
  t.is(envelopeKeyId(rewrapped), keyId(Buffer.from(newer, 'base64')));
  t.is(rewrapSecret(both, rewrapped), undefined, 'already under the current key');
  const onlyNew = new SecretKeyring({ kind: 'env', keys: [newer] });
  t.is(decryptSecret(onlyNew, rewrapped, 'ctx'), 'value');
  t.throws(() => decryptSecret(onlyNew, envelope, 'ctx'), {
    message: /wrapped under key [0-9a-f]{16}, which this engine does not have/,
  });
});

test('a malformed key stops with a message naming where it came from, not the key', (t) => {
  const error = t.throws(
    () => new SecretKeyring(keySourceFromEnv({ FLOWHOOK_SECRETS_KEY: `${newKey()},not-a-key-at-all` })),
  );
  t.regex(error!.message, /FLOWHOOK_SECRETS_KEY: key 2 is not base64 of 32 bytes/);
  t.false(error!.message.includes('not-a-key-at-all'));
});

test('without a key the store says how to configure one', (t) => {
  const keyring = new SecretKeyring(keySourceFromEnv({}));
  t.false(keyring.configured);
  t.throws(() => encryptSecret(keyring, 'x', 'c'), {
    instanceOf: KeyringError,
    message: /FLOWHOOK_SECRETS_KEY.*FLOWHOOK_SECRETS_KEY_FILE/,
  });
});

test('the variable wins over the key file', (t) => {
  t.is(keySourceFromEnv({ FLOWHOOK_SECRETS_KEY: 'a', FLOWHOOK_SECRETS_KEY_FILE: '/x' }).kind, 'env');
  t.is(keySourceFromEnv({ FLOWHOOK_SECRETS_KEY_FILE: '/x' }).kind, 'file');
});

test('a key file gains a new first key on rotation, keeps the older ones, and stays 0600', (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'flowhook-keys-')), 'secrets-key');
  const first = newKey();
  writeFileSync(path, `${first}\n`, { mode: 0o600 });
  const keyring = new SecretKeyring({ kind: 'file', path });
  const envelope = encryptSecret(keyring, 'value', 'ctx');
  const generated = keyring.generateKey();
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  t.is(lines.length, 2);
  t.is(lines[1], first);
  t.is(generated.id, keyId(Buffer.from(lines[0]!, 'base64')));
  t.is(statSync(path).mode & 0o777, 0o600);
  t.is(decryptSecret(keyring, envelope, 'ctx'), 'value');
  // Another engine sharing the file learns the new key when it meets it.
  const other = new SecretKeyring({ kind: 'file', path: path });
  writeFileSync(path, `${newKey()}\n${lines.join('\n')}\n`, { mode: 0o600 });
  const fromNewest = encryptSecret(new SecretKeyring({ kind: 'file', path }), 'later', 'ctx');
  t.is(decryptSecret(other, fromNewest, 'ctx'), 'later');
});

test('an env keyring cannot generate a key and says what to do instead', (t) => {
  const keyring = new SecretKeyring({ kind: 'env', keys: [newKey()] });
  t.throws(() => keyring.generateKey(), { message: /put a new key first in it, restart the engine, then rotate/ });
});

test('a head re-wrapped from an envelope cut short splices onto the rest: the same secret, still bound to its context', (t) => {
  const oldKey = newKey();
  const newer = newKey();
  const secret = 'x'.repeat(5000);
  const envelope = encryptSecret(new SecretKeyring({ kind: 'env', keys: [oldKey] }), secret, 'ctx');
  const both = new SecretKeyring({ kind: 'env', keys: [newer, oldKey] });
  const rewrapped = rewrapEnvelopeHead(both, envelope.slice(0, ENVELOPE_HEAD_MAX))!;
  t.true(rewrapped.head.endsWith('.'));
  t.true(rewrapped.head.length <= ENVELOPE_HEAD_MAX);
  t.is(envelope[rewrapped.replaces - 1], '.', 'the old head ends at its last dot');
  const spliced = rewrapped.head + envelope.slice(rewrapped.replaces);
  t.is(envelopeKeyId(spliced), keyId(Buffer.from(newer, 'base64')));
  const onlyNew = new SecretKeyring({ kind: 'env', keys: [newer] });
  t.is(decryptSecret(onlyNew, spliced, 'ctx'), secret);
  t.throws(() => decryptSecret(onlyNew, spliced, 'other'), { message: /does not decrypt/ });
  t.is(rewrapEnvelopeHead(both, spliced.slice(0, ENVELOPE_HEAD_MAX)), undefined, 'already under the current key');
  // Cut inside the head: not an envelope's start.
  t.throws(() => rewrapEnvelopeHead(both, envelope.slice(0, 30)), { message: /not in a format this engine reads/ });
});

test("a batch of delivery bodies' heads: each re-wrapped, the body still opening only on its own row", (t) => {
  const oldKey = newKey();
  const newer = newKey();
  const old = new SecretKeyring({ kind: 'env', keys: [oldKey] });
  const both = new SecretKeyring({ kind: 'env', keys: [newer, oldKey] });
  const onlyNew = new SecretKeyring({ kind: 'env', keys: [newer] });
  const request = { body: Buffer.from('{"order": 1}'), query: 'a=1' };
  const ids = ['5f0e2a4c-0000-4000-8000-000000000001', '5f0e2a4c-0000-4000-8000-000000000002'];
  const bodies = ids.map((id) => sealRequest(old, id, request));
  t.is(bodies[0]!.keyId, keyId(Buffer.from(oldKey, 'base64')));
  const current = sealRequest(both, 'already-new', request);
  const updates = rewrapDeliveryHeads(both, [
    ...ids.map((id, index) => ({ id, head: bodies[index]!.body.subarray(0, ENVELOPE_HEAD_MAX) })),
    { id: 'already-new', head: current.body.subarray(0, ENVELOPE_HEAD_MAX) },
  ]);
  t.deepEqual(
    updates.map((update) => update.id),
    [...ids, 'already-new'],
  );
  // What the update statement does: overlay(body placing head from 1 for replaces).
  const spliced = ids.map((_, index) =>
    Buffer.concat([updates[index]!.head, bodies[index]!.body.subarray(updates[index]!.replaces)]),
  );
  t.deepEqual(openRequest(onlyNew, ids[0]!, spliced[0]!), { body: request.body, query: 'a=1' });
  t.deepEqual(openRequest(onlyNew, ids[1]!, spliced[1]!), { body: request.body, query: 'a=1' });
  t.throws(() => openRequest(onlyNew, ids[1]!, spliced[0]!), { message: /does not decrypt/ });
  t.like(updates[2], { replaces: 0 }, 'already under the current key: the body stays, only key_id is set');
  t.is(updates[2]!.head.length, 0);
  t.throws(() => rewrapDeliveryHeads(both, [{ id: 'broken-row', head: Buffer.from('fh1.nonsense') }]), {
    instanceOf: KeyringError,
    message: /^delivery broken-row: a stored secret is not in a format this engine reads/,
  });
});
