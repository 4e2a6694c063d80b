// The worker's connection to the engine (HTTP/2, binary Connect): activities
// that need data call the engine's services, which own PostgreSQL.
import { createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { AlertCheckService } from '../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { HousekeepingService } from '../../proto/gen/flowhook/engine/v1/retention_service_pb.js';
import { CallbackService } from '../../proto/gen/flowhook/engine/v1/callback_service_pb.js';
import { OutboundService } from '../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { RecordService } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { Health } from '../../proto/gen/grpc/health/v1/health_pb.js';
import { engineSessionOptions, type EngineClientTls } from '../../common/engine-client-tls.ts';
import { engineAuthInterceptor } from '../../common/engine-auth-interceptor.ts';
import { traceContextInterceptor } from '../../common/tracing/rpc-tracing.ts';
import type { Tracer } from '@opentelemetry/api';
import { engineOutageWait } from './engine-outage-wait.ts';

export type RecordClient = Client<typeof RecordService>;
export type OutboundClient = Client<typeof OutboundService>;
export type CallbackClient = Client<typeof CallbackService>;

export interface WorkerEngineClient {
  records: RecordClient;
  outbound: OutboundClient;
  /** Registers the keys waitForCallback steps wait for. */
  callbacks: CallbackClient;
  /** Alert rules' evaluation and notification (workflows/operations/alert-activities.ts). */
  alerts: Client<typeof AlertCheckService>;
  /** The retention workflow's purge rounds (workflows/operations/retention-activities.ts). */
  housekeeping: Client<typeof HousekeepingService>;
  /** The engine's gRPC health service, for the worker's /readyz (workflows/metrics/worker-readiness.ts). */
  health: Client<typeof Health>;
  close(): void;
}

/** With a tracer (tracing on), calls made inside an activity's span carry its trace to the engine. */
export function createWorkerEngineClient(options: {
  engineUrl: string;
  engineToken: string;
  engineTls?: EngineClientTls;
  tracer?: Tracer;
}): WorkerEngineClient {
  const sessionManager = new Http2SessionManager(
    options.engineUrl,
    { pingIntervalMs: 30_000 },
    engineSessionOptions(options.engineTls),
  );
  const transportWith = (interceptors: Interceptor[]) =>
    createConnectTransport({
      baseUrl: options.engineUrl,
      httpVersion: '2',
      useBinaryFormat: true,
      sessionManager,
      interceptors: [
        ...interceptors,
        engineAuthInterceptor(options.engineToken),
        ...(options.tracer ? [traceContextInterceptor(options.tracer)] : []),
      ],
    });
  // Activities wait out an engine restart (engine-outage-wait.ts); the readiness probe must not: it reports the outage.
  const activityTransport = transportWith([engineOutageWait()]);
  return {
    records: createClient(RecordService, activityTransport),
    outbound: createClient(OutboundService, activityTransport),
    callbacks: createClient(CallbackService, activityTransport),
    alerts: createClient(AlertCheckService, activityTransport),
    housekeeping: createClient(HousekeepingService, activityTransport),
    health: createClient(Health, transportWith([])),
    close: () => sessionManager.abort(),
  };
}
