// Request and response helpers of the engine's two browser-facing listeners,
// the codec server and the console (node:http, no framework: each has a
// handful of routes). Nothing here decides who may do what.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request refused with an HTTP status and a message its sender may read (never a credential). */
export class HttpRefusal extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** One request header; the first, should it come more than once. */
export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function mediaType(request: IncomingMessage): string {
  return (header(request, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Reads at most `limit` bytes; a larger body is refused (413) before it is all in memory. */
export async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    throw new HttpRefusal(413, `the body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpRefusal(413, `the body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** What these answers share: never cached (decrypted payloads, session state), never sniffed. */
const NO_STORE = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/** A whole answer with its length, never cached nor sniffed. */
export function sendText(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { ...NO_STORE, ...headers, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendText(response, status, JSON.stringify(body), { ...headers, 'content-type': 'application/json; charset=utf-8' });
}

/**
 * What a page of ours carries: its Content-Security-Policy, no sniffing, no framing (no clickjacking).
 * `same-origin`, not `no-referrer`: under no-referrer browsers send `Origin: null` with a page's POSTs,
 * and an origin check could not tell our page from another site's.
 */
export function pageHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
  };
}

/** Text for HTML, attribute values included. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** After a route failed: `answer` (a 500) while nothing is sent yet; once the answer has begun, the connection is dropped. */
export function answerFailure(response: ServerResponse, answer: () => void): void {
  if (!response.headersSent) answer();
  else response.destroy();
}
