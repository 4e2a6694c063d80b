// The request headers a waitForCallback step sees: names lower-cased, repeated
// ones joined with ", " (RFC 9110 §5.3), without credentials (authorization,
// cookie, proxy-authorization) and without what proxies on the way added about
// the connection (host, forwarded, x-forwarded-*): the flow reads what the
// sender said, not where the facade runs.
import type { HttpHeader } from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { isWithheldCallbackHeader } from '../../../flow/withheld-headers.ts';
import { headerMap } from '../webhook/direct-request.ts';
import { setOwnMember } from '../../../common/own-member.ts';

export function deliveredHeaders(headers: readonly HttpHeader[]): Record<string, string> {
  const delivered: Record<string, string> = {};
  for (const [name, value] of headerMap(headers)) {
    if (isWithheldCallbackHeader(name)) continue;
    setOwnMember(delivered, name, value);
  }
  return delivered;
}
