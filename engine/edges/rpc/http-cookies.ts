// Reading and writing the cookies of flowhook's own browser sessions (the
// codec server's and the console's). Always HttpOnly (no page script reads
// them) and Path=/; the SameSite rule and lifetime are the caller's choice.

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
export function setCookie(name: string, value: string, options: CookieOptions): string {
  return `${name}=${value}; Max-Age=${options.maxAgeSeconds}; Path=/; HttpOnly; SameSite=${options.sameSite}${options.secure ? '; Secure' : ''}`;
}
