// Every secret flowhook generates or checks goes through here: per-flow
// webhook secrets, web service access keys and bearer tokens.
// Only SHA-256 hashes are stored; comparisons are constant-time.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A generated flow secret: 32 random characters, shown once. */
export const SECRET_LENGTH = 32;
/** Access keys are longer: they authenticate a user for a long time. */
export const ACCESS_KEY_LENGTH = 44;

/** Uniformly random characters from [A-Za-z0-9] (randomInt avoids modulo bias). */
export function generateRandomText(length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += ALPHABET[randomInt(ALPHABET.length)];
  return text;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The one place a supplied credential is compared with a stored hash: the
 * supplied text is hashed, then both digests are compared in constant time.
 * Comparing fixed-length digests also hides the supplied text's length.
 */
export function matchesHash(supplied: string, storedHashHex: string | null | undefined): boolean {
  const stored = Buffer.from(storedHashHex ?? '', 'hex');
  const digest = createHash('sha256').update(supplied, 'utf8').digest();
  if (stored.length !== digest.length) {
    // Still spend the comparison so a missing hash is not faster than a wrong secret.
    timingSafeEqual(digest, digest);
    return false;
  }
  return timingSafeEqual(digest, stored);
}
