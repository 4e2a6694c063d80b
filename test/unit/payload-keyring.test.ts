import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { localPayloadKeyFile } from '../../bin/start/local-tokens.ts';
import { payloadKeyId, readPayloadKeyring, rotatePayloadKeyFile } from '../../workflows/codec/payload-keyring.ts';

const b64 = () => randomBytes(32).toString('base64');
const dir = () => mkdtempSync(join(tmpdir(), 'payload-keys-'));

test('FLOWHOOK_PAYLOAD_KEY: the current key first, retired keys after it, comma-separated', (t) => {
  t.is(readPayloadKeyring({}), undefined);
  const [current, retired] = [b64(), b64()];
  const ring = readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY: `${current},${retired}` })!;
  t.is(ring.current.id, payloadKeyId(Buffer.from(current, 'base64')));
  t.deepEqual(ring.retiredIds(), [payloadKeyId(Buffer.from(retired, 'base64'))]);
});

test('a malformed key is refused, naming where it came from but not the key', (t) => {
  const short = randomBytes(16).toString('base64');
  const error = t.throws(() => readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY: short }), {
    message: /FLOWHOOK_PAYLOAD_KEY: key 1 is not base64 of exactly 32 bytes/,
  });
  t.false(error!.message.includes(short));
  t.throws(() => readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY: 'not base64!' }), { message: /FLOWHOOK_PAYLOAD_KEY/ });
  t.throws(() => readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY: b64(), FLOWHOOK_PAYLOAD_KEY_FILE: '/x' }), {
    message: /set FLOWHOOK_PAYLOAD_KEY or FLOWHOOK_PAYLOAD_KEY_FILE, not both/,
  });
  t.throws(() => readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY_FILE: join(dir(), 'missing') }), {
    message: /cannot read the payload key file .*missing \(FLOWHOOK_PAYLOAD_KEY_FILE\): ENOENT/,
  });
});

test('rotation puts a new key first in the file, keeps the old one for decrypting, 0600, no scratch left', (t) => {
  const folder = dir();
  const path = join(folder, 'payload-key');
  const original = b64();
  // A file of one key, as `flowhook start` has always written it, is already a ring.
  writeFileSync(path, `${original}\n`, { mode: 0o644 });
  const before = readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY_FILE: path })!;
  const rotation = rotatePayloadKeyFile(path);
  t.deepEqual(rotation.retiredKeyIds, [before.current.id]);
  const after = readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY_FILE: path })!;
  t.is(after.current.id, rotation.currentKeyId);
  t.not(after.current.id, before.current.id);
  t.deepEqual(after.keys[1]!.key, Buffer.from(original, 'base64'));
  t.is(statSync(path).mode & 0o777, 0o600);
  t.deepEqual(readdirSync(folder), ['payload-key']);
  t.false(JSON.stringify(rotation).includes(original));
  t.is(readFileSync(path, 'utf8').trim().split('\n').length, 2);
});

test('`flowhook start` keeps its one-key payload-key file as the ring, makes one 0600 when missing, and yields to configured keys', (t) => {
  const folder = dir();
  const existing = b64();
  writeFileSync(join(folder, 'payload-key'), `${existing}\n`, { mode: 0o600 });
  const path = localPayloadKeyFile(folder, {})!;
  t.is(path, join(folder, 'payload-key'));
  t.deepEqual(
    readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY_FILE: path })!.current.key,
    Buffer.from(existing, 'base64'),
    'the installation keeps its key',
  );
  const fresh = dir();
  const made = localPayloadKeyFile(fresh, {})!;
  t.is(statSync(made).mode & 0o777, 0o600);
  t.is(readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY_FILE: made })!.keys.length, 1);
  t.is(localPayloadKeyFile(dir(), { FLOWHOOK_PAYLOAD_KEY: b64() }), undefined);
  t.is(
    localPayloadKeyFile(dir(), { FLOWHOOK_PAYLOAD_KEY_FILE: '/etc/flowhook/payload-keys' }),
    '/etc/flowhook/payload-keys',
  );
});
