// The console's session cookie: HttpOnly (no script reads it), SameSite=Strict
// (no other site's page makes the browser send it), Secure and `__Host-`
// prefixed whenever the browser reaches the console over TLS (then no other
// host of the domain can set or shadow it). Never in a URL, never in storage.
import { setCookie } from '../security/http-cookies.ts';

export interface SessionCookie {
  name: string;
  set(value: string, ttlMs: number): string;
  clear(): string;
}

export function sessionCookie(secure: boolean): SessionCookie {
  // `__Host-` cookies must be Secure: over plain http (loopback) the plain name.
  const name = secure ? '__Host-flowhook-console' : 'flowhook_console_session';
  const options = (maxAgeSeconds: number) => ({ maxAgeSeconds, sameSite: 'Strict' as const, secure });
  return {
    name,
    set: (value, ttlMs) => setCookie(name, value, options(Math.floor(ttlMs / 1000))),
    clear: () => setCookie(name, '', options(0)),
  };
}
