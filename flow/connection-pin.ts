// Where a connection's credentials may go: its base URL (scheme, host, port and
// path prefix) or one of its allowed hosts (scheme, host and port). Scheme and
// port always match exactly — an https pin never hands its secret to
// http://same-host:8080 — with default ports normalised (https://h is
// https://h:443). An allowed host without a scheme is https; plain http must be
// written out (`http://erp.internal:8080`).
//
// The path prefix is compared as the target server may read the path, not only
// as WHATWG URL parsing left it (which already resolves `.`, `..`, `%2e%2e` and
// turns `\` into `/`). A path must stay under the prefix under both readings:
//  - as sent: segment by segment, so `/api` never matches `/api-admin`;
//  - as a lenient server reads it: percent-escapes of ASCII decoded, up to three
//    rounds (`%252e` is a double-encoded dot; a path that still decodes after
//    three is refused), `\` and `/` both separators, `;parameters` and what
//    follows a NUL dropped from each segment (Tomcat and Spring read `..;/` as
//    `../`), empty segments collapsed, dot segments resolved.
// The URL is never rewritten (a server may need `%2F` in a segment, as GitLab's
// project ids do); a path that leaves the prefix under either reading is
// refused, as is one whose escapes are not UTF-8 (overlong `%c0%ae`, which old
// servers read as `.`).

export interface ConnectionPin {
  /** The base URL (empty when there is none). */
  baseUrl: string;
  /** `host`, `host:port`, `http://host[:port]` or `https://host[:port]`. */
  allowedHosts: string[];
}

interface PinnedOrigin {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: number;
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const ALLOWED_HOST = new RegExp(`^(?:(https?)://)?(${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`);
const DEFAULT_PORTS = { 'http:': 80, 'https:': 443 } as const;
/** Rounds of percent-decoding a lenient server might apply (double encoding). */
const DECODE_ROUNDS = 3;

/** An allowed-hosts entry as the origin it pins, or undefined when it is not one. */
export function parseAllowedHost(entry: string): PinnedOrigin | undefined {
  const match = ALLOWED_HOST.exec(entry);
  if (!match) return undefined;
  const protocol = match[1] === 'http' ? 'http:' : 'https:';
  const port = match[3] === undefined ? DEFAULT_PORTS[protocol] : Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { protocol, hostname: match[2]!, port };
}

/** Whether a connection's credentials may be sent to `url`. */
export function connectionAllows(pin: ConnectionPin, url: URL): boolean {
  if (pin.baseUrl) {
    const base = new URL(pin.baseUrl);
    if (url.origin === base.origin && pathWithin(url.pathname, base.pathname)) return true;
  }
  const port = effectivePort(url);
  return pin.allowedHosts.some((entry) => {
    const origin = parseAllowedHost(entry);
    return (
      origin !== undefined &&
      origin.protocol === url.protocol &&
      origin.hostname === url.hostname &&
      origin.port === port
    );
  });
}

function effectivePort(url: URL): number | undefined {
  if (url.port) return Number(url.port);
  return url.protocol === 'http:' || url.protocol === 'https:' ? DEFAULT_PORTS[url.protocol] : undefined;
}

/** Whether `path` lies under the prefix `basePath` however the server reads it (see the top). */
export function pathWithin(path: string, basePath: string): boolean {
  const prefix = segmentsAsSent(basePath);
  if (prefix.length === 0) return true;
  if (!startsWith(segmentsAsSent(path), prefix)) return false;
  const [lenientPath, lenientPrefix] = [leniently(path), leniently(basePath)];
  return (
    lenientPath !== undefined &&
    lenientPrefix !== undefined &&
    escapesAreUtf8(path) &&
    startsWith(lenientPath, lenientPrefix)
  );
}

/** The path's segments after the leading `/`, without a trailing empty one (`/api/` is `/api`). */
function segmentsAsSent(path: string): string[] {
  const segments = path.split('/').slice(1);
  if (segments.at(-1) === '') segments.pop();
  return segments;
}

function startsWith(segments: string[], prefix: string[]): boolean {
  return segments.length >= prefix.length && prefix.every((segment, index) => segments[index] === segment);
}

function escapesAreUtf8(path: string): boolean {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const [run] of path.matchAll(/(?:%[0-9a-f]{2})+/gi)) {
    const bytes = Uint8Array.from(run.slice(1).split('%'), (hex) => Number.parseInt(hex, 16));
    try {
      decoder.decode(bytes);
    } catch {
      return false;
    }
  }
  return true;
}

/** The segments a lenient server resolves the path to (`..` above the root stays at the root); undefined when it is encoded deeper than we decode. */
function leniently(path: string): string[] | undefined {
  let decoded = path;
  for (let round = 0; ; round++) {
    const next = decoded.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    if (next === decoded) break;
    if (round === DECODE_ROUNDS) return undefined;
    decoded = next;
  }
  const resolved: string[] = [];
  for (const raw of decoded.split(/[/\\]/)) {
    const segment = raw.replace(/[;\0].*$/s, '');
    if (segment === '' || segment === '.') continue;
    if (segment === '..') resolved.pop();
    else resolved.push(segment);
  }
  return resolved;
}
