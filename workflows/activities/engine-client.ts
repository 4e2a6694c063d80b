// The worker's connection to the engine (HTTP/2, binary Connect): activities
// that need data call the engine's services, which own PostgreSQL.
import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { OutboundService } from '../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { RecordService } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { engineSessionOptions, type EngineClientTls } from '../../common/engine-client-tls.ts';
import { engineAuthInterceptor } from '../../common/engine-auth-interceptor.ts';

export type RecordClient = Client<typeof RecordService>;
export type OutboundClient = Client<typeof OutboundService>;

export interface WorkerEngineClient {
  records: RecordClient;
  outbound: OutboundClient;
  close(): void;
}

export function createWorkerEngineClient(options: { engineUrl: string; engineToken: string; engineTls?: EngineClientTls }): WorkerEngineClient {
  const sessionManager = new Http2SessionManager(options.engineUrl, { pingIntervalMs: 30_000 }, engineSessionOptions(options.engineTls));
  const transport = createConnectTransport({
    baseUrl: options.engineUrl,
    httpVersion: '2',
    useBinaryFormat: true,
    sessionManager,
    interceptors: [engineAuthInterceptor(options.engineToken)],
  });
  return { records: createClient(RecordService, transport), outbound: createClient(OutboundService, transport), close: () => sessionManager.abort() };
}
