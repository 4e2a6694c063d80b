// Request headers a flow never reads. Credentials, on every route: a proxy
// or browser may add them, and a flow has no use for the sender's secrets.
// On the callback route also what proxies on the way add about the connection
// (host, forwarded, x-forwarded-*): the flow reads what the sender said, not
// where the facade runs. One list for the engine (which filters before
// delivering) and the workflow (which filters again: anyone with access to the
// Temporal namespace can send the update). Sandbox-safe.

/** Never handed to a flow, on any route (lower-case names). */
export const CREDENTIAL_HEADERS: readonly string[] = Object.freeze(['authorization', 'proxy-authorization', 'cookie']);

const CALLBACK_WITHHELD = new Set([...CREDENTIAL_HEADERS, 'forwarded', 'host']);

/** Whether a waitForCallback step is kept from seeing this header (name lower-cased). */
export function isWithheldCallbackHeader(name: string): boolean {
  return CALLBACK_WITHHELD.has(name) || name.startsWith('x-forwarded-');
}
