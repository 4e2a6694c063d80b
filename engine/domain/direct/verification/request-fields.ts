// Reading what a provider sends besides the signature: header values, event
// ids, and a top-level string of a JSON body. All of it is attacker input
// until verified, so every reader bounds its work and answers undefined
// instead of throwing.

/** The same bound as the facade's Idempotency-Key: the event id becomes one. */
export const MAX_EVENT_ID_LENGTH = 255;

/** Bodies larger than this are not parsed for an event id or a challenge (Slack's events are a few kB). */
const MAX_JSON_PEEK_BYTES = 1024 * 1024;

/** A header's value; an empty value counts as absent. */
export function headerValue(headers: ReadonlyMap<string, string>, name: string): string | undefined {
  const value = headers.get(name);
  return value === undefined || value.length === 0 ? undefined : value;
}

/**
 * An event id as the idempotency key may use it: 1..255 visible ASCII
 * characters (no spaces, no control characters, nothing a log line or a
 * workflow id would have to escape). Anything else is no event id.
 */
export function isEventId(text: string): boolean {
  if (text.length === 0 || text.length > MAX_EVENT_ID_LENGTH) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

/** The first of these headers that is present, when it is a usable event id. */
export function eventIdFromHeaders(headers: ReadonlyMap<string, string>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = headerValue(headers, name);
    if (value !== undefined) return isEventId(value) ? value : undefined;
  }
  return undefined;
}

/**
 * The body as a JSON object, or undefined when it is none (form posts, XML,
 * bytes, arrays). Only bodies that start with `{` are parsed at all.
 */
export function jsonObjectBody(body: Uint8Array): Record<string, unknown> | undefined {
  if (body.length > MAX_JSON_PEEK_BYTES || firstNonSpaceByte(body) !== 0x7b) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return undefined;
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

/** An own string member of a parsed object (never one inherited from Object.prototype). */
export function stringMember(object: Record<string, unknown> | undefined, member: string): string | undefined {
  if (object === undefined || !Object.hasOwn(object, member)) return undefined;
  const value = object[member];
  return typeof value === 'string' ? value : undefined;
}

/** A top-level string member of a JSON object body, kept only when it is a usable event id. */
export function eventIdFromJson(body: Uint8Array, member: string): string | undefined {
  const value = stringMember(jsonObjectBody(body), member);
  return value !== undefined && isEventId(value) ? value : undefined;
}

function firstNonSpaceByte(body: Uint8Array): number | undefined {
  for (let i = 0; i < body.length; i++) {
    const b = body[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b;
  }
  return undefined;
}
