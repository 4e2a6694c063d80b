// The request headers a waitForCallback step sees: names lower-cased, repeated
// ones joined with ", " (RFC 9110 §5.3), without credentials (authorization,
// cookie, proxy-authorization) and without what proxies on the way added about
// the connection (host, forwarded, x-forwarded-*): the flow reads what the
// sender said, not where the facade runs.
import type { HttpHeader } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { headerMap } from '../webhook/direct-request.ts';

const WITHHELD = new Set(['authorization', 'cookie', 'proxy-authorization', 'forwarded', 'host']);

export function isWithheldHeader(name: string): boolean {
  return WITHHELD.has(name) || name.startsWith('x-forwarded-');
}

export function deliveredHeaders(headers: readonly HttpHeader[]): Record<string, string> {
  const delivered: Record<string, string> = {};
  for (const [name, value] of headerMap(headers)) {
    if (isWithheldHeader(name)) continue;
    // defineProperty: a header literally named `__proto__` stays a plain member.
    Object.defineProperty(delivered, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return delivered;
}
