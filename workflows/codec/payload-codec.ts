// AES-256-GCM encryption of the payloads the payload converter marked as
// belonging to a doNotLogPayload execution (flow/payload-converter.ts).
// Used by the engine's Temporal client and by the worker, so Temporal's
// history and visibility only ever hold ciphertext for those executions.
// Not part of flow/: it needs node:crypto, which the workflow
// sandbox must not import.
//
// Keys come from a ring (payload-keyring.ts): the current key encrypts, any
// key of the ring decrypts. Each ciphertext is bound to its execution: the
// workflow id of the SDK's serialization context is the GCM additional data,
// and is repeated in the metadata so the codec server (which the Temporal UI
// gives no context) can still decrypt. Decoding with a context refuses a
// payload bound to another workflow id: a history event copied from one
// execution into another does not decrypt there.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DataConverter, Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import protos from '@temporalio/proto';
import { SENSITIVE_METADATA } from '../../flow/payload-converter.ts';
import type { PayloadKey, PayloadKeyring } from './payload-keyring.ts';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata keys of an encrypted payload; all visible in Temporal, none secret. */
export const KEY_ID_METADATA = 'encryption-key-id';
export const FORMAT_METADATA = 'encryption-format';
export const WORKFLOW_ID_METADATA = 'encryption-workflow-id';
/** Payloads without FORMAT_METADATA are the release before the ring: sha256 key id, no additional data. */
const FORMAT = 'flowhook-2';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const PAYLOAD_CONVERTER_PATH = fileURLToPath(new URL('../../flow/payload-converter.ts', import.meta.url));

/** A payload that cannot be decrypted; says which key id or binding, never a key. */
export class PayloadDecryptionError extends Error {}

export class PayloadEncryptionCodec implements PayloadCodec {
  readonly #keyring: PayloadKeyring | undefined;

  /** Without keys, a marked payload cannot be encoded: such executions fail instead of leaking. */
  constructor(keyring: PayloadKeyring | undefined) {
    this.#keyring = keyring;
  }

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return payloads.map((payload) =>
      payload.metadata?.[SENSITIVE_METADATA] ? this.#encrypt(payload, context?.workflowId) : payload,
    );
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return payloads.map((payload) =>
      text(payload, 'encoding') === ENCRYPTED_ENCODING ? this.#decrypt(payload, context?.workflowId) : payload,
    );
  }

  /**
   * Without a workflow id (no context: the codec server's /encode, an activity
   * whose workflow is unknown) the payload is bound to nothing, and says so in
   * its additional data, so a bound payload cannot pass for an unbound one.
   */
  #encrypt(payload: Payload, workflowId: string | undefined): Payload {
    if (!this.#keyring)
      throw new Error(
        'FLOWHOOK_PAYLOAD_KEY is not configured: a doNotLogPayload execution cannot keep its payload out of Temporal',
      );
    const key = this.#keyring.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.key, iv);
    cipher.setAAD(additionalData(workflowId));
    const plain = protos.temporal.api.common.v1.Payload.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    const metadata: Record<string, Uint8Array> = {
      encoding: encoder.encode(ENCRYPTED_ENCODING),
      [KEY_ID_METADATA]: encoder.encode(key.id),
      [FORMAT_METADATA]: encoder.encode(FORMAT),
    };
    if (workflowId !== undefined) metadata[WORKFLOW_ID_METADATA] = encoder.encode(workflowId);
    return { metadata, data };
  }

  #decrypt(payload: Payload, contextWorkflowId: string | undefined): Payload {
    const keyId = text(payload, KEY_ID_METADATA);
    const format = text(payload, FORMAT_METADATA);
    if (format !== '' && format !== FORMAT)
      throw new PayloadDecryptionError(`cannot decrypt a payload of format ${format}: this flowhook knows ${FORMAT}`);
    const legacy = format === '';
    const key = legacy ? this.#keyring?.findLegacy(keyId) : this.#keyring?.find(keyId);
    if (!key)
      throw new PayloadDecryptionError(
        `cannot decrypt a payload encrypted with key ${keyId || '(unknown)'}: it is not in the payload keyring (FLOWHOOK_PAYLOAD_KEY or FLOWHOOK_PAYLOAD_KEY_FILE)`,
      );
    const bound = payload.metadata?.[WORKFLOW_ID_METADATA] ? text(payload, WORKFLOW_ID_METADATA) : undefined;
    if (bound !== undefined && contextWorkflowId !== undefined && bound !== contextWorkflowId) {
      throw new PayloadDecryptionError(
        'refused a payload bound to another execution: encrypted payloads cannot be moved between executions',
      );
    }
    return open(payload, key, legacy ? undefined : additionalData(bound));
  }
}

function open(payload: Payload, key: PayloadKey, aad: Buffer | undefined): Payload {
  const data = Buffer.from(payload.data ?? new Uint8Array());
  if (data.length < IV_BYTES + TAG_BYTES)
    throw new PayloadDecryptionError(`cannot decrypt a payload encrypted with key ${key.id}: it is truncated`);
  const decipher = createDecipheriv('aes-256-gcm', key.key, data.subarray(0, IV_BYTES));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new PayloadDecryptionError(
      `cannot decrypt a payload encrypted with key ${key.id}: it was altered or its execution binding was changed`,
    );
  }
  return protos.temporal.api.common.v1.Payload.decode(plain) as Payload;
}

/** The GCM additional data: the format, then the bound workflow id or the word that none is bound. */
function additionalData(workflowId: string | undefined): Buffer {
  return Buffer.from(workflowId === undefined ? `${FORMAT}\0unbound` : `${FORMAT}\0workflow\0${workflowId}`, 'utf8');
}

function text(payload: Payload, key: string): string {
  return decoder.decode(payload.metadata?.[key] ?? new Uint8Array());
}

/**
 * The data converter of the engine's client and of the worker: the converter
 * module (loaded by path, so the workflow sandbox gets it too) and the codec.
 */
export function flowDataConverter(keyring: PayloadKeyring | undefined): DataConverter {
  return {
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    failureConverterPath: PAYLOAD_CONVERTER_PATH,
    payloadCodecs: [new PayloadEncryptionCodec(keyring)],
  };
}
