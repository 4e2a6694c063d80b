// A callback URL's token: 32 random bytes, base64url (43 characters), so the
// URL is a capability nobody can guess. The engine keeps only its SHA-256
// (callback-digests.ts); the token itself exists in the URL the worker writes
// into one outbound request and nowhere else — never in a log line or an error.
import { randomBytes } from 'node:crypto';

const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function mintCallbackToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Whether the text could be a token at all: anything else is not looked up. */
export function isCallbackTokenShape(text: string): boolean {
  return TOKEN_SHAPE.test(text);
}

/** `{public url}/{instance}/callbacks/{token}`; the public URL has no trailing slash (engine/config.ts). */
export function callbackUrl(target: { publicUrl: string; instance: string }, token: string): string {
  return `${target.publicUrl}/${target.instance}/callbacks/${token}`;
}
