// The provider route's request, read once into the shapes verification and
// the flow need: a header map for the verifier, the headers the flow may see
// (signature material and credentials removed), the body as text or base64, and
// the route as the verifier reads it.
import type { HttpHeader } from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { fromJson } from '@bufbuild/protobuf';
import {
  DirectRouteSchema,
  type DirectRoute,
  type DirectRouteJson,
} from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { DirectTriggerRequest } from '../../../flow/index.ts';
import { setOwnMember } from '../../../common/own-member.ts';

/** Lower-cased names; a repeated header's values joined with ", " (RFC 9110 §5.3), as the verifiers expect. */
export function headerMap(headers: readonly HttpHeader[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const { name, value } of headers) {
    const key = name.toLowerCase();
    const existing = map.get(key);
    map.set(key, existing === undefined ? value : `${existing}, ${value}`);
  }
  return map;
}

/** The headers a flow sees as Trigger.Headers: all but `withheld` (the scheme's signature material and credentials, verification's withheldHeaders). */
export function visibleHeaders(
  headers: ReadonlyMap<string, string>,
  withheld: ReadonlySet<string>,
): Record<string, string> {
  const visible: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (withheld.has(name)) continue;
    setOwnMember(visible, name, value);
  }
  return visible;
}

/** The media type of a Content-Type value: lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

// fatal: bytes that are not UTF-8 are told apart instead of becoming U+FFFD;
// ignoreBOM: a byte order mark stays in the text, so the text is the bytes exactly.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as the execution input carries it: exact UTF-8 text, or base64 of bytes that are not UTF-8. */
export function bodyForFlow(body: Uint8Array): { text: string; encoding: DirectTriggerRequest['bodyEncoding'] } {
  try {
    return { text: utf8.decode(body), encoding: 'text' };
  } catch {
    return { text: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64'), encoding: 'base64' };
  }
}

// Published definitions are cached snapshots (published-flow-lookup.ts): the
// route is converted from its JSON form once per snapshot, not once per request.
const routes = new WeakMap<DirectRouteJson, DirectRoute>();

/** The trigger's `direct` as the verifier reads it (a protobuf message); undefined when the flow has no provider route. */
export function directRouteOf(json: DirectRouteJson | undefined): DirectRoute | undefined {
  if (!json) return undefined;
  let route = routes.get(json);
  if (!route) {
    route = fromJson(DirectRouteSchema, json);
    routes.set(json, route);
  }
  return route.verify?.scheme.case ? route : undefined;
}
