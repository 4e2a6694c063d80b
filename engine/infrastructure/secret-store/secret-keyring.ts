// The key-encryption keys (KEKs) of the secret store. They come from
// FLOWHOOK_SECRETS_KEY (comma-separated, newest first) or from a key file (one
// key a line, newest first; `flowhook start` makes one, mode 0600). The first
// key wraps new secrets; the others only unwrap what they wrapped before, until
// `flowhook secret-store rotate` has re-wrapped everything.
//
// A key id is a short digest of the key: it names the key in every ciphertext
// (so the right key is found after a rotation) and reveals nothing about it.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { SettingValues } from '../../../common/configuration/configuration-table.ts';
import { FailedPreconditionError } from '../../errors.ts';

export const SECRETS_KEY_VARIABLE = 'FLOWHOOK_SECRETS_KEY';
export const SECRETS_KEY_FILE_VARIABLE = 'FLOWHOOK_SECRETS_KEY_FILE';

export interface KeySource {
  kind: 'env' | 'file' | 'none';
  /** The key file, for kind 'file'. */
  path?: string;
  /** Base64 keys, newest first, for kind 'env'. */
  keys?: string[];
}

export interface Kek {
  id: string;
  key: Buffer;
}

export class SecretKeyring {
  #keys: Kek[];
  readonly #source: KeySource;

  constructor(source: KeySource) {
    this.#source = source;
    this.#keys = loadKeys(source);
  }

  get configured(): boolean {
    return this.#keys.length > 0;
  }

  get fromFile(): boolean {
    return this.#source.kind === 'file';
  }

  /** The key new secrets are wrapped under; throws when the store has no key. */
  current(): Kek {
    const key = this.#keys[0];
    if (!key)
      throw new KeyringError(
        `the secret store has no key: set ${SECRETS_KEY_VARIABLE} (base64 of 32 random bytes) or ${SECRETS_KEY_FILE_VARIABLE}; \`flowhook start\` makes one under its data directory`,
      );
    return key;
  }

  /**
   * The key with this id. An unknown id re-reads the key file once: another
   * engine sharing the file may have rotated to a key this one has not seen.
   */
  find(id: string): Kek | undefined {
    const known = this.#keys.find((key) => key.id === id);
    if (known || this.#source.kind !== 'file') return known;
    this.#keys = loadKeys(this.#source);
    return this.#keys.find((key) => key.id === id);
  }

  ids(): string[] {
    return this.#keys.map((key) => key.id);
  }

  /** Key file only: a new key goes first in the file (older keys stay for unwrapping). */
  generateKey(): Kek {
    const path = this.#source.path;
    if (this.#source.kind !== 'file' || !path)
      throw new KeyringError(
        `the keys come from ${SECRETS_KEY_VARIABLE}: put a new key first in it, restart the engine, then rotate`,
      );
    const fresh = randomBytes(32);
    const lines = [fresh.toString('base64'), ...this.#keys.map((key) => key.key.toString('base64'))];
    // Written beside and renamed, so a crash never leaves a half-written key file.
    const scratch = `${path}.new`;
    writeFileSync(scratch, `${lines.join('\n')}\n`, { mode: 0o600 });
    renameSync(scratch, path);
    this.#keys = loadKeys(this.#source);
    return this.current();
  }
}

/** The store cannot serve: no key, an unknown key id, a damaged ciphertext. Never quotes a key or a secret. */
export class KeyringError extends FailedPreconditionError {}

export function keyId(key: Buffer): string {
  return createHash('sha256').update('flowhook-kek\0').update(key).digest('hex').slice(0, 16);
}

/** Reads the key source's keys; a malformed key stops the process with a message naming where it came from. */
function loadKeys(source: KeySource): Kek[] {
  if (source.kind === 'none') return [];
  let texts: string[];
  let where: string;
  if (source.kind === 'env') {
    texts = source.keys ?? [];
    where = SECRETS_KEY_VARIABLE;
  } else {
    where = `the key file ${source.path}`;
    try {
      texts = readFileSync(source.path!, 'utf8').split('\n');
    } catch (error) {
      throw new KeyringError(
        `cannot read ${where} (${SECRETS_KEY_FILE_VARIABLE}): ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      );
    }
  }
  const keys = texts
    .map((text) => text.trim())
    .filter((text) => text !== '')
    .map((text, index) => parseKey(text, where, index));
  if (keys.length === 0) throw new KeyringError(`${where} holds no key (base64 of 32 random bytes)`);
  return keys;
}

function parseKey(text: string, where: string, index: number): Kek {
  const key = Buffer.from(text, 'base64');
  // The key's own text never goes into the message.
  if (key.length !== 32 || !/^[A-Za-z0-9+/=_-]+$/.test(text))
    throw new KeyringError(`${where}: key ${index + 1} is not base64 of 32 bytes`);
  return { id: keyId(key), key };
}

/** The key source the engine's configuration names: the variable wins over the file. */
export function keySourceFromEnv(
  settings: Partial<SettingValues<typeof SECRETS_KEY_VARIABLE | typeof SECRETS_KEY_FILE_VARIABLE>>,
): KeySource {
  const inline = settings[SECRETS_KEY_VARIABLE];
  if (inline) return { kind: 'env', keys: inline.split(',') };
  const path = settings[SECRETS_KEY_FILE_VARIABLE];
  if (path) return { kind: 'file', path };
  return { kind: 'none' };
}
