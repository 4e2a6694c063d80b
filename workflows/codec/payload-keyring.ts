// The keys of doNotLogPayload executions' payloads: one current key that
// encrypts new payloads, and retired keys that only decrypt what they encrypted
// before a rotation, so old histories stay readable.
//
// They come from FLOWHOOK_PAYLOAD_KEY (base64, comma-separated, newest first)
// or from FLOWHOOK_PAYLOAD_KEY_FILE (one key a line, newest first, mode 0600;
// the format of the secret store's key file). `flowhook payload-key rotate`
// puts a new key first in the file; engines and workers read it at start.
//
// A key id names the key in every ciphertext's metadata, which Temporal shows
// to anyone who reads the history. It is an HMAC under the key itself, so it
// reveals nothing a plain digest of a low-entropy key would. The release
// before the ring used sha256(key) as id; that id is only looked up, so
// payloads written then stay readable.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import type { SettingValues } from '../../common/configuration/configuration-table.ts';

export const PAYLOAD_KEY_VARIABLE = 'FLOWHOOK_PAYLOAD_KEY';
export const PAYLOAD_KEY_FILE_VARIABLE = 'FLOWHOOK_PAYLOAD_KEY_FILE';

export interface PayloadKey {
  /** HMAC-SHA256(key, "flowhook payload key id"), 16 hex digits: what new payloads carry. */
  id: string;
  /** sha256(key), 16 hex digits: what payloads written before the ring carry. */
  legacyId: string;
  key: Buffer;
}

export class PayloadKeyring {
  readonly keys: readonly PayloadKey[];

  /** Newest first: the first key encrypts, every key decrypts. */
  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new Error('a payload keyring needs at least one key');
    this.keys = Object.freeze(keys.map((key) => ({ id: payloadKeyId(key), legacyId: legacyPayloadKeyId(key), key })));
  }

  get current(): PayloadKey {
    return this.keys[0]!;
  }

  find(id: string): PayloadKey | undefined {
    return this.keys.find((key) => key.id === id);
  }

  findLegacy(legacyId: string): PayloadKey | undefined {
    return this.keys.find((key) => key.legacyId === legacyId);
  }

  retiredIds(): string[] {
    return this.keys.slice(1).map((key) => key.id);
  }
}

export function payloadKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('flowhook payload key id').digest('hex').slice(0, 16);
}

function legacyPayloadKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/**
 * The ring named by the environment, or undefined when neither variable is set
 * (then doNotLogPayload executions fail rather than leak). Both set is refused:
 * which one holds the retired keys would be a guess.
 */
export function readPayloadKeyring(
  settings: Partial<SettingValues<typeof PAYLOAD_KEY_VARIABLE | typeof PAYLOAD_KEY_FILE_VARIABLE>>,
): PayloadKeyring | undefined {
  const inline = settings[PAYLOAD_KEY_VARIABLE];
  const path = settings[PAYLOAD_KEY_FILE_VARIABLE];
  if (inline && path) throw new Error(`set ${PAYLOAD_KEY_VARIABLE} or ${PAYLOAD_KEY_FILE_VARIABLE}, not both`);
  if (inline) return new PayloadKeyring(parseKeys(inline.split(','), PAYLOAD_KEY_VARIABLE));
  if (path) return new PayloadKeyring(readKeyFile(path));
  return undefined;
}

/** The keys of a key file, newest first; the message names the file and the line, never a key. */
export function readKeyFile(path: string): Buffer[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read the payload key file ${path} (${PAYLOAD_KEY_FILE_VARIABLE}): ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
  return parseKeys(text.split('\n'), `the payload key file ${path}`);
}

function parseKeys(texts: string[], where: string): Buffer[] {
  const keys = texts
    .map((text) => text.trim())
    .filter((text) => text !== '')
    .map((text, index) => {
      const key = Buffer.from(text, 'base64');
      if (key.length !== 32 || key.toString('base64') !== text)
        throw new Error(`${where}: key ${index + 1} is not base64 of exactly 32 bytes (e.g. openssl rand -base64 32)`);
      return key;
    });
  if (keys.length === 0) throw new Error(`${where} holds no key (base64 of 32 random bytes)`);
  return keys;
}

export interface PayloadKeyRotation {
  currentKeyId: string;
  retiredKeyIds: string[];
}

/**
 * Puts a newly generated key first in the key file; the previous keys stay
 * after it, for decrypting. Written to a new 0600 file, flushed and renamed
 * over the old one, so a crash leaves either the old ring or the new one.
 */
export function rotatePayloadKeyFile(path: string): PayloadKeyRotation {
  const ring = new PayloadKeyring([randomBytes(32), ...readKeyFile(path)]);
  writeKeyFile(
    path,
    ring.keys.map((entry) => entry.key),
  );
  return { currentKeyId: ring.current.id, retiredKeyIds: ring.retiredIds() };
}

export function writeKeyFile(path: string, keys: Buffer[]): void {
  const scratch = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.new`;
  const fd = openSync(scratch, 'wx', 0o600);
  try {
    writeSync(fd, `${keys.map((key) => key.toString('base64')).join('\n')}\n`);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(scratch);
    throw error;
  }
  closeSync(fd);
  renameSync(scratch, path);
}
