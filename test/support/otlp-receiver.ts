// An OTLP/HTTP trace receiver in the test process: what a collector on :4318
// would get from flowhook, decoded from the JSON export requests (the encoding
// @opentelemetry/exporter-trace-otlp-http sends) into flat span records. The raw
// bodies are kept too, so a test can search everything that left the process.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP numbering: 1 internal, 2 server, 3 client. */
  kind: number;
  scope: string;
  serviceName?: string;
  attributes: Record<string, unknown>;
  statusCode: number;
  events: { name: string; attributes: Record<string, unknown> }[];
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Every export request body, as received. */
  bodies: string[];
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value: Record<string, unknown>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !String(req.headers['content-type']).startsWith('application/json')
      ) {
        res.writeHead(415).end();
        return;
      }
      bodies.push(text);
      spans.push(...decode(JSON.parse(text)));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decode(request: {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: Record<string, unknown>[] }[];
  }[];
}): ReceivedSpan[] {
  const decoded: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const serviceName = attributes(resourceSpans.resource?.attributes)['service.name'] as string | undefined;
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        decoded.push({
          traceId: String(span.traceId),
          spanId: String(span.spanId),
          parentSpanId: span.parentSpanId ? String(span.parentSpanId) : undefined,
          name: String(span.name),
          kind: Number(span.kind),
          scope: scopeSpans.scope?.name ?? '',
          serviceName,
          attributes: attributes(span.attributes as OtlpKeyValue[] | undefined),
          statusCode: Number((span.status as { code?: number } | undefined)?.code ?? 0),
          events: ((span.events as { name: string; attributes?: OtlpKeyValue[] }[] | undefined) ?? []).map((event) => ({
            name: event.name,
            attributes: attributes(event.attributes),
          })),
        });
      }
    }
  }
  return decoded;
}

function attributes(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) result[key] = anyValue(value);
  return result;
}

function anyValue(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('boolValue' in value) return value.boolValue;
  if ('arrayValue' in value)
    return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(anyValue);
  if ('kvlistValue' in value) return attributes((value.kvlistValue as { values?: OtlpKeyValue[] }).values);
  return undefined;
}
