// The httpRequest step's I/O: one outbound HTTP call per attempt. A non-2xx
// answer is data for the flow, not a failure; network errors and timeouts are
// retried by Temporal per the step's policy.
import { ApplicationFailure } from '@temporalio/activity';
import { XMLParser } from 'fast-xml-parser';

export interface HttpRequestInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Stable per execution and step, so a target that honours it applies a retried call once. */
  idempotencyKey: string;
}

export interface HttpRequestOutput {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed, when it is JSON. */
  json?: unknown;
  /**
   * The body parsed, when it is XML (content type `…xml`): elements become
   * members named without their namespace prefix (`Envelope.Body.…`), text
   * stays text, attributes are members named `@name`.
   */
  xml?: unknown;
}

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export async function httpRequest(input: HttpRequestInput): Promise<HttpRequestOutput> {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw ApplicationFailure.nonRetryable(`"${input.url}" is not an absolute URL`, 'InvalidUrl');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw ApplicationFailure.nonRetryable(`unsupported URL scheme ${url.protocol}`, 'InvalidUrl');
  }
  const headers = new Headers(input.headers);
  if (!headers.has('idempotency-key')) headers.set('idempotency-key', input.idempotencyKey);
  let response: Response;
  try {
    response = await fetch(url, { method: input.method, headers, body: input.body, signal: AbortSignal.timeout(input.timeoutMs), redirect: 'follow' });
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `timed out after ${input.timeoutMs} ms` : 'connection failed';
    throw ApplicationFailure.retryable(`${input.method} ${url.origin}${url.pathname}: ${reason}`, 'HttpRequestFailed');
  }
  const body = await readLimited(response);
  const output: HttpRequestOutput = { status: response.status, headers: Object.fromEntries(response.headers), body };
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.includes('json')) {
    try {
      output.json = JSON.parse(body);
    } catch {
      // A body labelled JSON that is not JSON stays available as text.
    }
  } else if (/[/+]xml\b/i.test(contentType)) {
    output.xml = parseXml(body);
  }
  return output;
}

// Text values stay strings (no number guessing: "007" and big integers keep their spelling).
const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

function parseXml(body: string): unknown {
  try {
    return xmlParser.parse(body, true);
  } catch {
    // A body labelled XML that is not well-formed stays available as text.
    return undefined;
  }
}

async function readLimited(response: Response): Promise<string> {
  const buffer = await response.arrayBuffer();
  if (buffer.byteLength > MAX_RESPONSE_BYTES) {
    throw ApplicationFailure.nonRetryable(`response body over ${MAX_RESPONSE_BYTES} bytes`, 'ResponseTooLarge');
  }
  return new TextDecoder().decode(buffer);
}
