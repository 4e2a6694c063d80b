// The facade's one connection to the engine: a Connect client for
// WebhookService (calls, provider routes, late answers, and waitForCallback's
// DeliverCallback and ResumeCallback) over HTTP/2 (h2c on loopback, TLS or mutual TLS otherwise), binary
// format, on a single reused session that close() tears down.
import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { WebhookService } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { DeliveryLogService } from '../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { Health } from '../proto/gen/grpc/health/v1/health_pb.js';
import type { FacadeConfig } from './config.ts';
import { engineSessionOptions } from '../common/engine-client-tls.ts';
import { engineAuthInterceptor } from '../common/engine-auth-interceptor.ts';
import { traceContextInterceptor } from '../common/tracing/rpc-tracing.ts';
import type { Tracer } from '@opentelemetry/api';

export type WebhookClient = Client<typeof WebhookService>;

export interface EngineClient {
  webhook: WebhookClient;
  /** The delivery log's intake (delivery-reporter.ts). */
  deliveryLog: Client<typeof DeliveryLogService>;
  /** The engine's gRPC health service, for /readyz. */
  health: Client<typeof Health>;
  /** Closes the HTTP/2 session; calls in flight fail. */
  close(): void;
}

// Sync calls may hold a stream open for the whole sync window; PINGs find a
// dead connection (engine restarted, proxy dropped it) instead of waiting on it.
const PING_INTERVAL_MS = 30_000;

/** With a tracer (tracing on), each call inside a traced request carries its trace to the engine. */
export function createEngineClient(
  config: Pick<FacadeConfig, 'engineUrl' | 'engineToken' | 'engineTls'>,
  tracer?: Tracer,
): EngineClient {
  // With a session manager, connect-node takes TLS options from here, not from the transport.
  const sessionManager = new Http2SessionManager(
    config.engineUrl,
    { pingIntervalMs: PING_INTERVAL_MS },
    engineSessionOptions(config.engineTls),
  );
  const transport = createConnectTransport({
    baseUrl: config.engineUrl,
    httpVersion: '2',
    useBinaryFormat: true,
    sessionManager,
    interceptors: [engineAuthInterceptor(config.engineToken), ...(tracer ? [traceContextInterceptor(tracer)] : [])],
  });
  return {
    webhook: createClient(WebhookService, transport),
    deliveryLog: createClient(DeliveryLogService, transport),
    health: createClient(Health, transport),
    close: () => sessionManager.abort(),
  };
}
