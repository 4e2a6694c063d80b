// The cookies and secrets of flowhook's own browser sessions (the codec
// server's and the console's). The browser holds a random cookie value; the
// server keeps only its SHA-256 (a dump of the session store holds no usable
// cookie). Cookies are always HttpOnly (no page script reads them) and Path=/;
// the SameSite rule, Secure and the lifetime are the caller's choice.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../domain/callers/credentials.ts';

/** 256 random bits, base64url: a session's cookie value, an OpenID Connect state, nonce or PKCE verifier. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A new session's cookie value (shown to nobody but the browser) and the key it is kept under. */
export function newSessionSecret(): { cookieValue: string; key: string } {
  const cookieValue = randomToken();
  return { cookieValue, key: sessionKey(cookieValue) };
}

/** The key a session is kept under: the SHA-256 of its cookie value. */
export function sessionKey(cookieValue: string): string {
  return sha256Hex(cookieValue);
}

/** The value of one cookie in a Cookie header; undefined when absent or empty. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim() || undefined;
  }
  return undefined;
}

export interface CookieOptions {
  /** 0 clears the cookie. */
  maxAgeSeconds: number;
  sameSite: 'Strict' | 'Lax';
  /** Sent over HTTPS only: set whenever the browser reaches us over TLS. */
  secure: boolean;
}

/** A Set-Cookie header value. */
function setCookie(name: string, value: string, options: CookieOptions): string {
  return `${name}=${value}; Max-Age=${options.maxAgeSeconds}; Path=/; HttpOnly; SameSite=${options.sameSite}${options.secure ? '; Secure' : ''}`;
}

/** One cookie of ours, by name: read from a Cookie header, set for a while, cleared. */
export interface BrowserCookie {
  /** Its value in a Cookie header; undefined when absent or empty. */
  valueIn(cookieHeader: string | undefined): string | undefined;
  /** Set-Cookie for `ttlMs` (in whole seconds). */
  set(value: string, ttlMs: number): string;
  clear(): string;
}

/** Strict unless told: no other site's page makes the browser send it. */
export function browserCookie(
  name: string,
  secure: boolean,
  sameSite: CookieOptions['sameSite'] = 'Strict',
): BrowserCookie {
  const options = (maxAgeSeconds: number) => ({ maxAgeSeconds, sameSite, secure });
  return {
    valueIn: (cookieHeader) => cookieValue(cookieHeader, name),
    set: (value, ttlMs) => setCookie(name, value, options(Math.floor(ttlMs / 1000))),
    clear: () => setCookie(name, '', options(0)),
  };
}
