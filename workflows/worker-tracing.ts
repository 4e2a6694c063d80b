// Tracing in the worker, when it is on: Temporal's OpenTelemetry interceptors
// continue the trace the engine's client put into the workflow's Temporal
// headers — RunWorkflow / HandleUpdate / StartActivity spans inside the
// sandbox, RunActivity spans around activities — and the outbound httpRequest
// span (outbound/outbound-tracing.ts) hangs below RunActivity.
//
// The header (`_tracer-data`) carries the W3C trace context only (tracing.ts
// registers no baggage propagator): a trace id, a span id, the sampled flag and
// the caller's `tracestate`, if it sent one. It is plain JSON in the history,
// like every header, also for doNotLogPayload executions; nothing of the payload.
// Workflow spans leave the sandbox through the `exporter` sink; the process's
// span processor withholds what the sink adds beyond metadata.
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from '../common/tracing/tracing.ts';

export type WorkerTracingOptions = Required<Pick<WorkerOptions, 'sinks'>> & {
  activityInterceptors: NonNullable<NonNullable<WorkerOptions['interceptors']>['activity']>;
};

export function workerTracingOptions(tracing: Tracing): WorkerTracingOptions {
  return {
    activityInterceptors: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
