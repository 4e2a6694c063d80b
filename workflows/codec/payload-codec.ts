// AES-256-GCM encryption of the payloads the payload converter marked as
// belonging to a doNotLogPayload execution (workflows/shared/payload-converter.ts).
// Used by the engine's Temporal client and by the worker, so Temporal's
// history and visibility only ever hold ciphertext for those executions.
// Not part of workflows/shared: it needs node:crypto, which the workflow
// sandbox must not import.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import protos from '@temporalio/proto';
import { SENSITIVE_METADATA } from '../shared/payload-converter.ts';

const ENCODING = 'binary/encrypted';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const PAYLOAD_CONVERTER_PATH = fileURLToPath(new URL('../shared/payload-converter.ts', import.meta.url));

/** FLOWHOOK_PAYLOAD_KEY: base64 of exactly 32 random bytes. */
export function parsePayloadKey(raw: string | undefined, name = 'FLOWHOOK_PAYLOAD_KEY'): Buffer | undefined {
  if (raw === undefined || raw === '') return undefined;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || key.toString('base64') !== raw.trim()) throw new Error(`${name} must be base64 of exactly 32 bytes (e.g. openssl rand -base64 32)`);
  return key;
}

export class PayloadEncryptionCodec implements PayloadCodec {
  readonly #key: Buffer | undefined;
  readonly #keyId: string;

  /** Without a key, a marked payload cannot be encoded: such executions fail instead of leaking. */
  constructor(key: Buffer | undefined) {
    this.#key = key;
    this.#keyId = key ? createHash('sha256').update(key).digest('hex').slice(0, 16) : '';
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (payload.metadata?.[SENSITIVE_METADATA] ? this.#encrypt(payload) : payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (decoder.decode(payload.metadata?.encoding ?? new Uint8Array()) === ENCODING ? this.#decrypt(payload) : payload));
  }

  #encrypt(payload: Payload): Payload {
    if (!this.#key) throw new Error('FLOWHOOK_PAYLOAD_KEY is not configured: a doNotLogPayload execution cannot keep its payload out of Temporal');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const plain = protos.temporal.api.common.v1.Payload.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { encoding: encoder.encode(ENCODING), 'encryption-key-id': encoder.encode(this.#keyId) }, data };
  }

  #decrypt(payload: Payload): Payload {
    const keyId = decoder.decode(payload.metadata?.['encryption-key-id'] ?? new Uint8Array());
    if (!this.#key || keyId !== this.#keyId) throw new Error(`cannot decrypt a payload encrypted with key ${keyId || '(unknown)'}: FLOWHOOK_PAYLOAD_KEY differs`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    const decipher = createDecipheriv('aes-256-gcm', this.#key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    return protos.temporal.api.common.v1.Payload.decode(plain) as Payload;
  }
}

/**
 * The data converter of the engine's client and of the worker: the converter
 * module (loaded by path, so the workflow sandbox gets it too) and the codec.
 */
export function flowDataConverter(key: Buffer | undefined): DataConverter {
  return { payloadConverterPath: PAYLOAD_CONVERTER_PATH, failureConverterPath: PAYLOAD_CONVERTER_PATH, payloadCodecs: [new PayloadEncryptionCodec(key)] };
}
