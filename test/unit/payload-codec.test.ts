import { randomBytes } from 'node:crypto';
import test from 'ava';
import { PayloadEncryptionCodec, parsePayloadKey } from '../../workflows/codec/payload-codec.ts';
import { markSensitive, payloadConverter } from '../../workflows/shared/payload-converter.ts';

const key = randomBytes(32);

test('marked payloads are encrypted with AES-256-GCM and decrypt to the same value, still marked', async (t) => {
  const codec = new PayloadEncryptionCodec(key);
  const [encoded] = await codec.encode([payloadConverter.toPayload(markSensitive({ card: 'CARD-4242' }))]);
  t.is(new TextDecoder().decode(encoded!.metadata!.encoding!), 'binary/encrypted');
  t.false(Buffer.from(encoded!.data!).toString('latin1').includes('CARD-4242'));
  const [decoded] = await codec.decode([encoded!]);
  t.deepEqual(payloadConverter.fromPayload(decoded!), { card: 'CARD-4242' });
});

test('unmarked payloads pass through readable', async (t) => {
  const codec = new PayloadEncryptionCodec(key);
  const plain = payloadConverter.toPayload({ card: 'CARD-1' });
  t.deepEqual(await codec.encode([plain]), [plain]);
});

test('a tampered ciphertext or another key is refused', async (t) => {
  const [encoded] = await new PayloadEncryptionCodec(key).encode([payloadConverter.toPayload(markSensitive({ a: 1 }))]);
  const tampered = { ...encoded!, data: Buffer.from(encoded!.data!).map((byte, i) => (i === 20 ? byte ^ 1 : byte)) };
  await t.throwsAsync(new PayloadEncryptionCodec(key).decode([tampered]));
  await t.throwsAsync(new PayloadEncryptionCodec(randomBytes(32)).decode([encoded!]), { message: /FLOWHOOK_PAYLOAD_KEY differs/ });
});

test('without a key a marked payload fails instead of leaking', async (t) => {
  await t.throwsAsync(new PayloadEncryptionCodec(undefined).encode([payloadConverter.toPayload(markSensitive({ a: 1 }))]), { message: /FLOWHOOK_PAYLOAD_KEY is not configured/ });
});

test('FLOWHOOK_PAYLOAD_KEY must be base64 of exactly 32 bytes', (t) => {
  t.is(parsePayloadKey(undefined), undefined);
  t.deepEqual(parsePayloadKey(key.toString('base64')), key);
  t.throws(() => parsePayloadKey(randomBytes(16).toString('base64')), { message: /FLOWHOOK_PAYLOAD_KEY must be base64 of exactly 32 bytes/ });
  t.throws(() => parsePayloadKey('not base64!'), { message: /FLOWHOOK_PAYLOAD_KEY/ });
});
