// Installs OTel's tracer provider, propagator and exporters for the process
// (tracing.ts decides when: once, for the first component with tracing on).
import { diag, DiagLogLevel, trace, type DiagLogger } from '@opentelemetry/api';
import pino from 'pino';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TracingOn } from './tracing-config.ts';
import type { Tracing } from './tracing.ts';
import { WithholdingSpanProcessor } from './withholding-span-processor.ts';

export function installTracing(config: TracingOn): Tracing {
  const resource = new Resource(config.resource);
  const spanProcessor = new WithholdingSpanProcessor(
    new MultiProcessor(config.exporters.map((kind) => new BatchSpanProcessor(exporter(kind, config)))),
  );
  const provider = new NodeTracerProvider({
    resource,
    sampler: sampler(config.sampler),
    spanProcessors: [spanProcessor],
  });
  // W3C trace context only, no baggage: baggage is free-form caller data and would travel into
  // Temporal headers (history) and to every outbound target.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  // Without a diag logger OTel drops its own errors: an unreachable collector would go unnoticed.
  diag.setLogger(diagnostics(), DiagLogLevel.WARN);
  return {
    tracer: (component) => trace.getTracer(`flowhook-${component}`),
    spanProcessor,
    resource,
    // An unreachable collector must not fail a component's shutdown: it is logged instead.
    flush: () => provider.forceFlush().catch((error: unknown) => diag.error('the last export failed', error)),
  };
}

/** OTel's warnings and errors (failed exports) as log lines; the text of an error, never its details object. */
function diagnostics(): DiagLogger {
  const logger = pino({ name: 'tracing', level: 'warn' });
  const line =
    (level: 'warn' | 'error') =>
    (message: string, ...args: unknown[]) =>
      logger[level](
        { reason: [message, ...args].map(reasonOf).join('; ').slice(0, 500) },
        'tracing: OpenTelemetry reports a problem',
      );
  const ignore = () => undefined;
  return { error: line('error'), warn: line('warn'), info: ignore, debug: ignore, verbose: ignore };
}

/** OTel's error handler hands over errors serialized as JSON; their message is what an operator needs. */
function reasonOf(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    const parsed: unknown = JSON.parse(String(value));
    if (typeof (parsed as { message?: unknown })?.message === 'string') return (parsed as { message: string }).message;
  } catch {
    // not JSON: the text as it is
  }
  return String(value);
}

function exporter(kind: TracingOn['exporters'][number], config: TracingOn): SpanExporter {
  if (kind === 'console') return new ConsoleSpanExporter();
  return new OTLPTraceExporter({ url: config.otlp.url, headers: { ...config.otlp.headers } });
}

function sampler({ name, ratio }: TracingOn['sampler']): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** One processor per exporter behind the withholding one (`OTEL_TRACES_EXPORTER=otlp,console`). */
class MultiProcessor implements SpanProcessor {
  readonly #processors: readonly SpanProcessor[];

  constructor(processors: readonly SpanProcessor[]) {
    this.#processors = processors;
  }

  onStart(...args: Parameters<SpanProcessor['onStart']>): void {
    for (const processor of this.#processors) processor.onStart(...args);
  }

  onEnd(...args: Parameters<SpanProcessor['onEnd']>): void {
    for (const processor of this.#processors) processor.onEnd(...args);
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.#processors.map((processor) => processor.forceFlush()));
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.#processors.map((processor) => processor.shutdown()));
  }
}
