// The process-wide tracer provider. `flowhook start` runs engine, worker and
// facade in one process (and tests run several stacks in one), while OTel has
// one global provider, context manager and propagator: the first component
// whose configuration turns tracing on installs them, later ones share them.
// With tracing off nothing is installed and components register no
// instrumentation at all, so the hot path carries none of it — and the OTel
// SDK and its exporter (tracing-provider.ts, ~20 MiB of resident memory once
// loaded) are not even imported.
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Resource } from '@opentelemetry/resources';
import type { Tracer } from '@opentelemetry/api';
import type { TracingConfig } from './tracing-config.ts';

export interface Tracing {
  /** Tracers are named after the component: the instrumentation scope tells facade, engine and worker spans apart in one process. */
  tracer(component: 'facade' | 'engine' | 'worker'): Tracer;
  /** What ended spans go through (the worker hands workflow spans from its sandbox to it). */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Exports what is buffered; components call it when they stop. */
  flush(): Promise<void>;
}

let installed: Promise<Tracing> | undefined;

/** The process's tracing, installed on first use; undefined when this configuration has tracing off. */
export async function startTracing(config: TracingConfig): Promise<Tracing | undefined> {
  if (!config.enabled) return undefined;
  installed ??= import('./tracing-provider.ts').then(({ installTracing }) => installTracing(config));
  return installed;
}
