// The httpRequest step's CLIENT span, and the `traceparent` the target gets so
// the ERP's own tracing can join the caller's trace. Only `traceparent` is sent
// (a trace id, this span's id, the sampled flag): not the caller's `tracestate`,
// which is the caller's data, not the target's.
// Attributes: method, host, port, scheme and status — never the path or query
// (they may carry keys or record ids), headers or bodies.
import { context, propagation, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';

export type TraceHeaders = Readonly<Record<string, string>>;

const NO_HEADERS: TraceHeaders = Object.freeze({});

/** Without a tracer (tracing off) this is just `send({})`. */
export async function traceOutbound<T extends { status: number; redirects: number }>(
  tracer: Tracer | undefined,
  method: string,
  url: URL,
  send: (traceHeaders: TraceHeaders) => Promise<T>,
): Promise<T> {
  if (!tracer) return send(NO_HEADERS);
  const attributes = {
    'http.request.method': method,
    'server.address': url.hostname,
    'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    'url.scheme': url.protocol.slice(0, -1),
  };
  return tracer.startActiveSpan(method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    try {
      const answer = await send(carrier.traceparent ? { traceparent: carrier.traceparent } : NO_HEADERS);
      span.setAttribute('http.response.status_code', answer.status);
      if (answer.redirects > 0) span.setAttribute('flowhook.http.redirects', answer.redirects);
      // For a client span 4xx is an error too (OTel HTTP conventions); the flow decides what it means.
      if (answer.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      return answer;
    } catch (error) {
      // The refusal's or failure's kind (EgressRefused, Timeout, …), never its message.
      const type = (error as { type?: unknown }).type;
      span.setAttribute(
        'error.type',
        typeof type === 'string' ? type : error instanceof Error ? error.name : 'unknown',
      );
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
