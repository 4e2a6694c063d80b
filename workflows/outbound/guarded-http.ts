// flowhook's one door to the outside: an HTTP(S) client that checks every hop
// against the egress policy (pinned to the checked address), follows redirects
// by hand with the rules below, and reads answers within a byte cap.
//
// Redirects (at most MAX_REDIRECTS): a hop to another origin drops
// Authorization, Cookie, Proxy-Authorization and every header a connection
// added; 303 (and 301/302 after a POST) continue as GET without a body;
// 307/308 keep method and body, the body only on the same origin.
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { EgressPolicy } from '../../flow/egress-policy.ts';
import { readBoundedBody } from './bounded-body.ts';
import { OutboundFailed, OutboundRefused, describeTarget } from './outbound-errors.ts';
import { bareHost, pinnedLookup, portOf, resolveChecked } from './pinned-resolution.ts';

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CROSS_ORIGIN_DROPPED = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'transfer-encoding'];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface GuardedRequest {
  method: string;
  url: URL;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string;
  /** Lower-case names of the headers a connection added: they follow only hops the connection allows. */
  credentialHeaders?: ReadonlySet<string>;
  /** Whether the connection's credentials may go to this URL (its base URL / allowed hosts). */
  credentialsAllowed?: (url: URL) => boolean;
}

export interface GuardedLimits {
  timeoutMs: number;
  maxResponseBytes: number;
  maxRedirects?: number;
}

export interface GuardedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Where the request ended after redirects. */
  url: URL;
  redirects: number;
}

export async function sendGuarded(
  request: GuardedRequest,
  policy: EgressPolicy,
  limits: GuardedLimits,
): Promise<GuardedAnswer> {
  checkHeaders(request.headers);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const maxRedirects = limits.maxRedirects ?? MAX_REDIRECTS;
  let hop: Hop = { method: request.method, url: request.url, headers: { ...request.headers }, body: request.body };
  for (let redirects = 0; ; redirects++) {
    const response = await sendOnce(hop, policy, signal, limits.timeoutMs);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || !location) {
      const body = await withTimeout(readBoundedBody(response, limits.maxResponseBytes), signal, hop, limits.timeoutMs);
      return { status: response.statusCode ?? 0, headers: flatHeaders(response), body, url: hop.url, redirects };
    }
    response.destroy();
    if (redirects >= maxRedirects)
      throw new OutboundRefused(
        `${describeTarget(request.method, request.url)}: more than ${maxRedirects} redirects`,
        'TooManyRedirects',
      );
    hop = nextHop(hop, response.statusCode!, location, request);
  }
}

type Hop = { method: string; url: URL; headers: Record<string, string>; body?: string };

function nextHop(hop: Hop, status: number, location: string, request: GuardedRequest): Hop {
  let url: URL;
  try {
    url = new URL(location, hop.url);
  } catch {
    throw new OutboundRefused(
      `${describeTarget(hop.method, hop.url)}: answered a redirect to something that is not a URL`,
      'InvalidRedirect',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundRefused(
      `${describeTarget(hop.method, hop.url)}: redirect to an unsupported scheme ${url.protocol}`,
      'InvalidRedirect',
    );
  const sameOrigin = url.origin === hop.url.origin;
  const headers = { ...hop.headers };
  if (!sameOrigin) for (const name of CROSS_ORIGIN_DROPPED) delete headers[name];
  if (!sameOrigin || !(request.credentialsAllowed?.(url) ?? true))
    for (const name of request.credentialHeaders ?? []) delete headers[name];
  let { method, body } = hop;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
  } else if (!sameOrigin) {
    body = undefined;
  }
  if (body === undefined) for (const name of BODY_HEADERS) delete headers[name];
  return { method, url, headers, body };
}

function sendOnce(hop: Hop, policy: EgressPolicy, signal: AbortSignal, timeoutMs: number): Promise<IncomingMessage> {
  return withTimeout(
    (async () => {
      const addresses = await resolveChecked(hop.url, policy);
      const host = bareHost(hop.url);
      const headers: OutgoingHttpHeaders = { ...hop.headers };
      const body = hop.body === undefined ? undefined : Buffer.from(hop.body, 'utf8');
      if (body) headers['content-length'] = String(body.length);
      const send = hop.url.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise<IncomingMessage>((resolve, reject) => {
        const outgoing = send({
          method: hop.method,
          host,
          port: portOf(hop.url),
          path: `${hop.url.pathname}${hop.url.search}`,
          headers: { host: hop.url.host, ...headers },
          lookup: pinnedLookup(addresses),
          // No pooled sockets: every hop connects to the address it was checked for.
          agent: false,
          servername: isIP(host) ? undefined : host,
          signal,
        });
        outgoing.on('response', resolve);
        outgoing.on('error', (error) => reject(networkFailure(hop, error, signal, timeoutMs)));
        outgoing.end(body);
      });
    })(),
    signal,
    hop,
    timeoutMs,
  );
}

/** Whatever is under way loses to the step's timeout, which covers every hop and the body. */
function withTimeout<T>(work: Promise<T>, signal: AbortSignal, hop: Hop, timeoutMs: number): Promise<T> {
  if (signal.aborted) return Promise.reject(timedOut(hop, timeoutMs));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(timedOut(hop, timeoutMs));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function timedOut(hop: Hop, timeoutMs: number): OutboundFailed {
  return new OutboundFailed(
    `${describeTarget(hop.method, hop.url)}: timed out after ${timeoutMs} ms`,
    'HttpRequestTimedOut',
  );
}

function networkFailure(hop: Hop, error: Error, signal: AbortSignal, timeoutMs: number): Error {
  if (signal.aborted) return timedOut(hop, timeoutMs);
  const code = (error as NodeJS.ErrnoException).code;
  // Node's own messages may quote a header value (ERR_INVALID_CHAR): only the code goes on.
  return new OutboundFailed(`${describeTarget(hop.method, hop.url)}: connection failed${code ? ` (${code})` : ''}`);
}

/** Checked here so no message of Node's ever quotes a header value. */
function checkHeaders(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name))
      throw new OutboundRefused(
        `header name ${JSON.stringify(name.slice(0, 100))} is not a valid HTTP header name`,
        'InvalidHeader',
      );
    if (/[\r\n]/.test(value) || value.includes('\0') || /[\u0100-\uffff]/.test(value)) {
      throw new OutboundRefused(
        `header "${name}" has a value HTTP cannot carry (a line break, NUL or a character beyond Latin-1); the value is not shown`,
        'InvalidHeader',
      );
    }
  }
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
