// Trace context across the facade → engine and worker → engine hops: a
// Connect client interceptor sends the W3C `traceparent` (beside the token
// engine-auth-interceptor.ts adds), and a server interceptor continues it in
// the engine. Registered only when tracing is on (tracing.ts).
//
// Span attributes are the RPC's name, its outcome code and — from the request
// message — only `company`, `activity` and the request id: identifiers, never
// a secret, credential or payload member.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import { SAFE_REQUEST_ID } from '../request-scope.ts';

type Request = Parameters<ReturnType<Interceptor>>[0];

const headerSetter: TextMapSetter<Headers> = { set: (headers, key, value) => headers.set(key, value) };
const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

// Probes and schema lookups arrive every few seconds from load balancers and tools: no spans.
const UNTRACED_SERVICES = new Set([
  'grpc.health.v1.Health',
  'grpc.reflection.v1.ServerReflection',
  'grpc.reflection.v1alpha.ServerReflection',
]);

/** Client side: a CLIENT span per call made inside a traced operation, its context sent as `traceparent`. A call outside any trace starts none. */
export function traceContextInterceptor(tracer: Tracer): Interceptor {
  return (next) => async (request) => {
    const parent = context.active();
    if (!trace.getSpan(parent)) return next(request);
    return tracer.startActiveSpan(
      spanName(request),
      { kind: SpanKind.CLIENT, attributes: rpcAttributes(request) },
      parent,
      async (span) => {
        propagation.inject(context.active(), request.header, headerSetter);
        return settle(span, () => next(request));
      },
    );
  };
}

/** Server side (outermost engine interceptor): continues the caller's trace from its `traceparent`, or starts one. */
export function rpcServerTracing(tracer: Tracer): Interceptor {
  return (next) => async (request) => {
    if (UNTRACED_SERVICES.has(request.service.typeName)) return next(request);
    const parent = propagation.extract(ROOT_CONTEXT, request.header, headerGetter);
    return tracer.startActiveSpan(
      spanName(request),
      { kind: SpanKind.SERVER, attributes: { ...rpcAttributes(request), ...messageAttributes(request) } },
      parent,
      (span) => settle(span, () => next(request)),
    );
  };
}

async function settle<T>(span: Span, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const code = ConnectError.from(error).code;
    span.setAttribute('rpc.connect_rpc.error_code', snakeCase(Code[code]));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

function spanName(request: Request): string {
  return `${request.service.typeName}/${request.method.name}`;
}

function rpcAttributes(request: Request): Attributes {
  return { 'rpc.system': 'connect_rpc', 'rpc.service': request.service.typeName, 'rpc.method': request.method.name };
}

function messageAttributes(request: Request): Attributes {
  if (request.stream) return {};
  const message = request.message as { company?: unknown; activity?: unknown; requestId?: unknown };
  const attributes: Attributes = {};
  if (typeof message.company === 'string' && message.company !== '') attributes['flowhook.company'] = message.company;
  if (typeof message.activity === 'string' && message.activity !== '')
    attributes['flowhook.activity'] = message.activity;
  if (typeof message.requestId === 'string' && SAFE_REQUEST_ID.test(message.requestId))
    attributes['flowhook.request_id'] = message.requestId;
  return attributes;
}

function snakeCase(name: string | undefined): string {
  return (name ?? 'unknown').replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}
