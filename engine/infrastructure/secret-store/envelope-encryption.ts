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

/**
 * The same secret, its data key wrapped under the current key; undefined when it already is. The
 * secret's ciphertext is kept as it is, so it stays bound to its context: none is needed here.
 */
export function rewrapSecret(keyring: SecretKeyring, envelope: string): string | undefined {
  const current = keyring.current();
  const { kek, wrapped, sealed } = parse(keyring, envelope);
  const head = rewrappedHead(current, kek, wrapped);
  return head === undefined ? undefined : `${head}${sealed}`;
}

/** The most an envelope's head (`fh1.<key id>.<wrapped data key>.`) takes; what follows is the secret's ciphertext. */
export const ENVELOPE_HEAD_MAX = 256;

/**
 * Re-wrapping without reading the whole envelope (a large stored value, e.g. a delivery's body):
 * given its start — at least its head, whatever follows it may be cut off — the new head under the
 * current key and how many characters of the old one it replaces (envelopes are ASCII: as many
 * bytes); undefined when it already is under the current key.
 */
export function rewrapEnvelopeHead(
  keyring: SecretKeyring,
  start: string,
): { head: string; replaces: number } | undefined {
  const current = keyring.current();
  const { kek, wrapped, length } = parseHead(keyring, start);
  const head = rewrappedHead(current, kek, wrapped);
  return head === undefined ? undefined : { head, replaces: length };
}

function rewrappedHead(current: Kek, kek: Kek, wrapped: string): string | undefined {
  if (kek.id === current.id) return undefined;
  const dataKey = open(kek.key, wrapped, Buffer.from(kek.id, 'utf8'));
  try {
    return `${[VERSION, current.id, wrap(current, dataKey)].join('.')}.`;
  } finally {
    dataKey.fill(0);
  }
}

/** The id of the key an envelope is wrapped under. */
export function envelopeKeyId(envelope: string): string {
  return envelope.split('.')[1] ?? '';
}

function parse(keyring: SecretKeyring, envelope: string): { kek: Kek; wrapped: string; sealed: string } {
  const { kek, wrapped, length } = parseHead(keyring, envelope);
  const sealed = envelope.slice(length);
  if (!sealed || sealed.includes('.')) throw notAnEnvelope();
  return { kek, wrapped, sealed };
}

/** The head of an envelope (or of its start): its key, the wrapped data key, and the head's length with its last dot. */
function parseHead(keyring: SecretKeyring, text: string): { kek: Kek; wrapped: string; length: number } {
  const parts = text.split('.', 4);
  const [version, id, wrapped] = parts;
  if (parts.length < 4 || version !== VERSION || !id || !wrapped) throw notAnEnvelope();
  const kek = keyring.find(id);
  if (!kek)
    throw new KeyringError(
      `a stored secret is wrapped under key ${id}, which this engine does not have (add it to the keyring, newest key first)`,
    );
  return { kek, wrapped, length: version.length + id.length + wrapped.length + 3 };
}

function notAnEnvelope(): KeyringError {
  return new KeyringError('a stored secret is not in a format this engine reads');
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
