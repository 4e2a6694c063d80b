import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import type { Payload, SerializationContext } from '@temporalio/common';
import protos from '@temporalio/proto';
import test from 'ava';
import { PayloadEncryptionCodec } from '../../workflows/codec/payload-codec.ts';
import { PayloadKeyring, payloadKeyId } from '../../workflows/codec/payload-keyring.ts';
import { markSensitive, payloadConverter } from '../../flow/payload-converter.ts';

const key = randomBytes(32);
const ring = new PayloadKeyring([key]);
const workflowA: SerializationContext = { type: 'workflow', namespace: 'default', workflowId: 'exec-A' };
const workflowB: SerializationContext = { type: 'workflow', namespace: 'default', workflowId: 'exec-B' };
const meta = (payload: Payload, name: string) => new TextDecoder().decode(payload.metadata![name]!);
const sensitive = (value: object) => payloadConverter.toPayload(markSensitive(value));

test('marked payloads are encrypted with AES-256-GCM and decrypt to the same value, still marked', async (t) => {
  const codec = new PayloadEncryptionCodec(ring);
  const [encoded] = await codec.encode([sensitive({ card: 'CARD-4242' })], workflowA);
  t.is(meta(encoded!, 'encoding'), 'binary/encrypted');
  t.false(Buffer.from(encoded!.data!).toString('latin1').includes('CARD-4242'));
  const [decoded] = await codec.decode([encoded!], workflowA);
  t.deepEqual(payloadConverter.fromPayload(decoded!), { card: 'CARD-4242' });
});

test('unmarked payloads pass through readable', async (t) => {
  const codec = new PayloadEncryptionCodec(ring);
  const plain = payloadConverter.toPayload({ card: 'CARD-1' });
  t.deepEqual(await codec.encode([plain], workflowA), [plain]);
});

test('the key id is an HMAC under the key, not a digest of the raw key', async (t) => {
  const [encoded] = await new PayloadEncryptionCodec(ring).encode([sensitive({ a: 1 })], workflowA);
  t.is(meta(encoded!, 'encryption-key-id'), payloadKeyId(key));
  t.not(payloadKeyId(key), createHash('sha256').update(key).digest('hex').slice(0, 16));
  t.regex(payloadKeyId(key), /^[0-9a-f]{16}$/);
});

test('a payload is bound to its execution: decoding it for another workflow id is refused', async (t) => {
  const codec = new PayloadEncryptionCodec(ring);
  const [encoded] = await codec.encode([sensitive({ a: 1 })], workflowA);
  t.is(meta(encoded!, 'encryption-workflow-id'), 'exec-A');
  await t.throwsAsync(codec.decode([encoded!], workflowB), { message: /bound to another execution/ });
  // An activity of execution A decodes it; one of B does not.
  t.deepEqual(
    payloadConverter.fromPayload(
      (
        await codec.decode([encoded!], { type: 'activity', namespace: 'default', workflowId: 'exec-A', isLocal: false })
      )[0]!,
    ),
    { a: 1 },
  );
  await t.throwsAsync(
    codec.decode([encoded!], { type: 'activity', namespace: 'default', workflowId: 'exec-B', isLocal: false }),
    { message: /bound to another execution/ },
  );
  // Without a context (the codec server, for an operator) the bound id in the metadata is used.
  t.deepEqual(payloadConverter.fromPayload((await codec.decode([encoded!]))[0]!), { a: 1 });
});

test('rewriting the bound workflow id in the metadata, or dropping it, breaks the ciphertext', async (t) => {
  const codec = new PayloadEncryptionCodec(ring);
  const [encoded] = await codec.encode([sensitive({ a: 1 })], workflowA);
  const rebound = {
    ...encoded!,
    metadata: { ...encoded!.metadata, 'encryption-workflow-id': new TextEncoder().encode('exec-B') },
  };
  await t.throwsAsync(codec.decode([rebound], workflowB), { message: /altered or its execution binding was changed/ });
  const { ['encryption-workflow-id']: _dropped, ...unbound } = encoded!.metadata!;
  await t.throwsAsync(codec.decode([{ ...encoded!, metadata: unbound }], workflowB), {
    message: /altered or its execution binding was changed/,
  });
});

test('without a context the payload is bound to nothing and decodes anywhere', async (t) => {
  const codec = new PayloadEncryptionCodec(ring);
  const [encoded] = await codec.encode([sensitive({ a: 2 })]);
  t.false('encryption-workflow-id' in encoded!.metadata!);
  t.deepEqual(payloadConverter.fromPayload((await codec.decode([encoded!], workflowB))[0]!), { a: 2 });
});

test('after a rotation the new key encrypts and the retired key still decrypts', async (t) => {
  const [old] = await new PayloadEncryptionCodec(ring).encode([sensitive({ v: 'old' })], workflowA);
  const next = randomBytes(32);
  const rotated = new PayloadEncryptionCodec(new PayloadKeyring([next, key]));
  t.deepEqual(payloadConverter.fromPayload((await rotated.decode([old!], workflowA))[0]!), { v: 'old' });
  const [fresh] = await rotated.encode([sensitive({ v: 'new' })], workflowA);
  t.is(meta(fresh!, 'encryption-key-id'), payloadKeyId(next));
  // The old ring cannot read what the new key wrote, and says which key it lacks.
  await t.throwsAsync(new PayloadEncryptionCodec(ring).decode([fresh!], workflowA), {
    message: new RegExp(`key ${payloadKeyId(next)}: it is not in the payload keyring`),
  });
});

test('payloads of the release before the ring (sha256 key id, no additional data) stay readable', async (t) => {
  // Exactly what that release's codec wrote.
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const plain = protos.temporal.api.common.v1.Payload.encode(sensitive({ legacy: true })).finish();
  const legacy: Payload = {
    metadata: {
      encoding: new TextEncoder().encode('binary/encrypted'),
      'encryption-key-id': new TextEncoder().encode(createHash('sha256').update(key).digest('hex').slice(0, 16)),
    },
    data: Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]),
  };
  const rotated = new PayloadEncryptionCodec(new PayloadKeyring([randomBytes(32), key]));
  t.deepEqual(payloadConverter.fromPayload((await rotated.decode([legacy], workflowA))[0]!), { legacy: true });
  t.deepEqual(payloadConverter.fromPayload((await rotated.decode([legacy]))[0]!), { legacy: true });
});

test('a tampered ciphertext or a key not in the ring is refused, naming the key id only', async (t) => {
  const [encoded] = await new PayloadEncryptionCodec(ring).encode([sensitive({ a: 1 })], workflowA);
  const tampered = { ...encoded!, data: Buffer.from(encoded!.data!).map((byte, i) => (i === 20 ? byte ^ 1 : byte)) };
  await t.throwsAsync(new PayloadEncryptionCodec(ring).decode([tampered], workflowA), { message: /altered/ });
  const error = await t.throwsAsync(
    new PayloadEncryptionCodec(new PayloadKeyring([randomBytes(32)])).decode([encoded!], workflowA),
    { message: /not in the payload keyring/ },
  );
  t.false(error!.message.includes(key.toString('base64')));
});

test('without a key a marked payload fails instead of leaking', async (t) => {
  await t.throwsAsync(new PayloadEncryptionCodec(undefined).encode([sensitive({ a: 1 })], workflowA), {
    message: /FLOWHOOK_PAYLOAD_KEY is not configured/,
  });
});
