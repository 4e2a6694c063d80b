// The engine's Temporal client: one connection per process, bounded by a
// connect timeout so an unreachable server is an error, never a hang. Its data
// converter encrypts doNotLogPayload executions' payloads like the worker's does.
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { Tracing } from '../../../common/tracing/tracing.ts';
import type { CallAbandonment } from './call-abandonment.ts';
import { flowDataConverter } from '../../../workflows/codec/payload-codec.ts';
import type { PayloadKeyring } from '../../../workflows/codec/payload-keyring.ts';
import type { TemporalSettings } from '../../../common/temporal/temporal-settings.ts';
import { temporalTlsOptions } from '../../../common/temporal/temporal-tls.ts';

/**
 * With tracing on, Temporal's client interceptor wraps starts and updates in spans and puts their
 * W3C trace context into the workflow's Temporal headers (see workflows/worker-tracing.ts for what
 * that header holds).
 */
export async function connectTemporal(
  settings: TemporalSettings,
  timeoutMs: number,
  abandonment: CallAbandonment,
  payloadKeys?: PayloadKeyring,
  tracing?: Tracing,
): Promise<Client> {
  const connection = await Connection.connect({
    // The SDK's retries, then (per attempt) the engine's way to give up on a call for good.
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), abandonment.interceptor],
    address: settings.address,
    tls: temporalTlsOptions(settings.tls),
    apiKey: settings.apiKey,
    connectTimeout: timeoutMs,
  });
  // Loaded only with tracing on: memory an engine without tracing does not need.
  const interceptors = tracing
    ? {
        workflow: [
          new (await import('@temporalio/interceptors-opentelemetry')).OpenTelemetryWorkflowClientInterceptor(),
        ],
      }
    : undefined;
  return new Client({
    connection,
    namespace: settings.namespace,
    dataConverter: flowDataConverter(payloadKeys),
    interceptors,
  });
}
