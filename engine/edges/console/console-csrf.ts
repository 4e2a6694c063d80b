// The console's CSRF token: an HMAC of the session's key under a deployment
// key every engine shares (engine_key `console-csrf`). The page learns it from
// GetSession's answer — which no other origin can read, as the console sends
// no CORS headers — and sends it in a header with every other call; a forged
// request from another site carries the cookie but cannot know the header.
// Derived, not stored: any engine checks it, and it dies with its session.
import { hmacMatches, hmacOf } from '../../domain/callers/deployment-keys.ts';

export const CSRF_HEADER = 'x-flowhook-csrf';

export function csrfTokenOf(key: Buffer, sessionKey: string): string {
  return hmacOf(key, ['console-csrf', sessionKey]);
}

export function csrfMatches(key: Buffer, sessionKey: string, supplied: string | undefined): boolean {
  return supplied !== undefined && hmacMatches(key, ['console-csrf', sessionKey], supplied);
}
