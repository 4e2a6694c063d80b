// Envelope encryption for the secret store: every secret is encrypted with its
// own random data key (AES-256-GCM), and the data key is wrapped under the
// keyring's current key-encryption key (AES-256-GCM again). The text stored is
//
//   fh1.<key id>.<wrapped data key>.<encrypted secret>       (base64url parts)
//
// The secret's ciphertext is bound to where it belongs (`context`, e.g. the
// connection's id), so a ciphertext copied to another row does not decrypt.
// Rotating the key only re-wraps the data key; the secret's ciphertext stays.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Kek, SecretKeyring } from './secret-keyring.ts';
import { KeyringError } from './secret-keyring.ts';

const VERSION = 'fh1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function encryptSecret(keyring: SecretKeyring, plaintext: string, context: string): string {
  const kek = keyring.current();
  const dataKey = randomBytes(32);
  try {
    const sealed = seal(dataKey, Buffer.from(plaintext, 'utf8'), Buffer.from(context, 'utf8'));
    return [VERSION, kek.id, wrap(kek, dataKey), sealed].join('.');
  } finally {
    dataKey.fill(0);
  }
}

export function decryptSecret(keyring: SecretKeyring, envelope: string, context: string): string {
  const { kek, wrapped, sealed } = parse(keyring, envelope);
  const dataKey = open(kek.key, wrapped, Buffer.from(kek.id, 'utf8'));
  try {
    return open(dataKey, sealed, Buffer.from(context, 'utf8')).toString('utf8');
  } finally {
    dataKey.fill(0);
  }
}

/** The same secret, its data key wrapped under the current key; undefined when it already is. */
export function rewrapSecret(keyring: SecretKeyring, envelope: string): string | undefined {
  const current = keyring.current();
  const { kek, wrapped, sealed } = parse(keyring, envelope);
  if (kek.id === current.id) return undefined;
  const dataKey = open(kek.key, wrapped, Buffer.from(kek.id, 'utf8'));
  try {
    return [VERSION, current.id, wrap(current, dataKey), sealed].join('.');
  } finally {
    dataKey.fill(0);
  }
}

/** The id of the key an envelope is wrapped under. */
export function envelopeKeyId(envelope: string): string {
  return envelope.split('.')[1] ?? '';
}

function parse(keyring: SecretKeyring, envelope: string): { kek: Kek; wrapped: string; sealed: string } {
  const [version, id, wrapped, sealed, ...rest] = envelope.split('.');
  if (version !== VERSION || !id || !wrapped || !sealed || rest.length > 0)
    throw new KeyringError('a stored secret is not in a format this engine reads');
  const kek = keyring.find(id);
  if (!kek)
    throw new KeyringError(
      `a stored secret is wrapped under key ${id}, which this engine does not have (add it to the keyring, newest key first)`,
    );
  return { kek, wrapped, sealed };
}

function wrap(kek: Kek, dataKey: Buffer): string {
  // The key id is the wrap's associated data: a data key only unwraps under the key that names it.
  return seal(kek.key, dataKey, Buffer.from(kek.id, 'utf8'));
}

function seal(key: Buffer, plaintext: Buffer, aad: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

function open(key: Buffer, text: string, aad: Buffer): Buffer {
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new KeyringError('a stored secret is damaged');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new KeyringError('a stored secret does not decrypt: wrong key or damaged ciphertext');
  }
}
