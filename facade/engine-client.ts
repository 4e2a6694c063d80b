// The facade's one connection to the engine: a Connect client for
// WebhookService over HTTP/2 cleartext (the engine serves h2c only), binary
// format, on a single reused session that close() tears down.
import { createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { WebhookService } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { FacadeConfig } from './config.ts';

export type WebhookClient = Client<typeof WebhookService>;

export interface EngineClient {
  webhook: WebhookClient;
  /** Closes the HTTP/2 session; calls in flight fail. */
  close(): void;
}

// Sync calls may hold a stream open for the whole sync window; PINGs find a
// dead connection (engine restarted, proxy dropped it) instead of waiting on it.
const PING_INTERVAL_MS = 30_000;

export function createEngineClient(config: Pick<FacadeConfig, 'engineUrl' | 'serviceToken'>): EngineClient {
  const sessionManager = new Http2SessionManager(config.engineUrl, { pingIntervalMs: PING_INTERVAL_MS });
  const transport = createConnectTransport({
    baseUrl: config.engineUrl,
    httpVersion: '2',
    useBinaryFormat: true,
    sessionManager,
    interceptors: config.serviceToken ? [serviceTokenInterceptor(config.serviceToken)] : [],
  });
  return {
    webhook: createClient(WebhookService, transport),
    close: () => sessionManager.abort(),
  };
}

function serviceTokenInterceptor(token: string): Interceptor {
  return (next) => (request) => {
    request.header.set('authorization', `Bearer ${token}`);
    return next(request);
  };
}
