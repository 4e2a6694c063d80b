// Comparing a received signature with the expected one without leaking more
// than its length. A received signature is decoded strictly first: its
// length and alphabet are public facts (every digest of an algorithm has the
// same length), so refusing on them tells an attacker nothing about the key.
import { timingSafeEqual } from 'node:crypto';
import type { HookSecrets } from './verification-types.ts';

export type DigestEncoding = 'hex' | 'base64';

/** At most this many signatures in one header: rotation needs two or three; more is someone making us work. */
export const MAX_SIGNATURES_PER_HEADER = 16;

/** Constant time for equal lengths; unequal lengths answer false at once (the length is public). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The bytes of an encoded digest that must be `byteLength` long, or undefined
 * when the text cannot be one. Hex is case-insensitive; base64 is the standard
 * alphabet (the URL-safe one too, as some senders use it), padded or not.
 */
export function decodeDigest(text: string, encoding: DigestEncoding, byteLength: number): Buffer | undefined {
  if (encoding === 'hex') {
    if (text.length !== byteLength * 2 || !everyChar(text, 0, text.length, isHexChar)) return undefined;
    return Buffer.from(text, 'hex');
  }
  const unpadded = Math.ceil((byteLength * 4) / 3);
  const padded = Math.ceil(byteLength / 3) * 4;
  if (text.length !== unpadded && text.length !== padded) return undefined;
  if (!everyChar(text, 0, unpadded, isBase64Char) || !everyChar(text, unpadded, text.length, isPadChar))
    return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === byteLength ? bytes : undefined;
}

/**
 * True when some candidate equals the digest under some secret (current, then
 * previous). `digestUnder` answers undefined for a secret that cannot sign
 * this way (e.g. a public key where an HMAC is expected). One digest per
 * secret, every candidate compared in constant time.
 */
export function anySecretSigned(
  secrets: HookSecrets,
  digestUnder: (secret: string) => Uint8Array | undefined,
  candidates: readonly Uint8Array[],
): boolean {
  if (candidates.length === 0) return false;
  for (const secret of secretsInOrder(secrets)) {
    const expected = digestUnder(secret);
    if (expected === undefined) continue;
    for (const candidate of candidates) {
      if (sameBytes(candidate, expected)) return true;
    }
  }
  return false;
}

/** The current secret, then the previous one inside its overlap; an empty secret verifies nothing. */
export function secretsInOrder(secrets: HookSecrets): string[] {
  const list: string[] = [];
  if (secrets.current) list.push(secrets.current);
  if (secrets.previous) list.push(secrets.previous);
  return list;
}

/** Base64 text of any length (standard or URL-safe alphabet, padding only at the end): the shape of a serialized key. */
export function isBase64Text(text: string): boolean {
  let end = text.length;
  while (end > 0 && isPadChar(text.charCodeAt(end - 1)) && text.length - end < 2) end--;
  return end > 0 && everyChar(text, 0, end, isBase64Char);
}

function everyChar(text: string, from: number, to: number, accepts: (code: number) => boolean): boolean {
  for (let i = from; i < to; i++) {
    if (!accepts(text.charCodeAt(i))) return false;
  }
  return true;
}

function isHexChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function isBase64Char(c: number): boolean {
  return (
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    (c >= 48 && c <= 57) ||
    c === 43 ||
    c === 47 ||
    c === 45 ||
    c === 95
  );
}

function isPadChar(c: number): boolean {
  return c === 61;
}
