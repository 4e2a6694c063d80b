// The facade's span: one SERVER span per request, continuing the caller's W3C
// trace context (`traceparent`, `tracestate`) when it sends one, so the caller's
// trace reaches through engine and Temporal to the flow's outbound calls.
// Installed outermost (before the error mapping) so the span sees the status the
// caller gets. Registered only when tracing is on.
//
// Trust: the caller chooses the trace id and, under the default parent-based
// sampler, whether its call is recorded; docs/how-to/observe.md (Traces) says so and how to decide
// yourself. Attributes: method, route, status, the `company` query parameter and
// the request id — never headers, the body or the query string.
import {
  context,
  defaultTextMapGetter,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { FacadeMiddleware } from './facade-context.ts';

// Probes and scrapes arrive every few seconds: no spans.
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function requestTracing(tracer: Tracer): FacadeMiddleware {
  return async function traceRequest(ctx, next) {
    if (UNTRACED_PATHS.has(ctx.path)) return next();
    const parent = propagation.extract(ROOT_CONTEXT, ctx.headers, defaultTextMapGetter);
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method, 'url.scheme': ctx.protocol } },
      parent,
    );
    let escaped = false;
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      escaped = true;
      throw error;
    } finally {
      // koa-router names the route it matched (`/:instance/ODataV4/flowWebhook_Invoke`): low cardinality, no caller text.
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (typeof route === 'string') {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      // An exception that escapes the error mapping ends as Koa's 500 for the caller.
      const status = escaped ? 500 : ctx.status;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      if (ctx.state.company) span.setAttribute('flowhook.company', ctx.state.company);
      if (ctx.state.requestId) span.setAttribute('flowhook.request_id', ctx.state.requestId);
      span.end();
    }
  };
}
