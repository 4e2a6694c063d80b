// Cross-origin rules of the codec server. The Temporal UI runs on another
// origin (another port at least) and calls the codec with fetch(): JSON and an
// `X-Namespace` header make every call preflighted. Only the configured UI
// origins get CORS headers, always echoed exactly (never `*`) since the UI may
// send credentials; any other page's call is refused before it runs.

/** What the UI (and the CLI) may send: the UI adds Authorization and Authorization-Extras when it passes the operator's tokens. */
const ALLOWED_HEADERS = 'content-type, x-namespace, authorization, authorization-extras';

export type OriginVerdict = 'none' | 'allowed' | 'refused';

/** `none`: no Origin header (the CLI, curl); browsers always send one on a cross-origin or POST request. */
export function judgeOrigin(origin: string | undefined, allowedOrigins: readonly string[]): OriginVerdict {
  if (origin === undefined || origin === '') return 'none';
  return allowedOrigins.includes(origin) ? 'allowed' : 'refused';
}

/** Headers for every answer to an allowed origin (so the UI can read a 401 as a 401, not as a network error). */
export function corsHeaders(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' };
}

/** The answer to a preflight from an allowed origin. */
export function preflightHeaders(origin: string, requestsPrivateNetwork: boolean): Record<string, string> {
  return {
    ...corsHeaders(origin),
    'access-control-allow-methods': 'POST',
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': '600',
    // A UI served from a public address calling a codec on a private one (Chrome's Private Network Access).
    ...(requestsPrivateNetwork ? { 'access-control-allow-private-network': 'true' } : {}),
  };
}
