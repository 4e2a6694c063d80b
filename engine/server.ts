// The engine's RPC server: HTTP/2 cleartext serving Connect, gRPC and gRPC-Web
// for WebhookService, RecordService and OutboundService (service token) and the
// admin services (admin token).
import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { AppAdminService } from '../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { ConnectionAdminService } from '../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { OutboundService } from '../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { SecretStoreAdminService } from '../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { ExecutionService } from '../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FlowAdminService } from '../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { RecordService } from '../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { UserAdminService } from '../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { WebhookService } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { createAppAdminService, createUserAdminService } from './admin/app-admin-service.ts';
import { createFlowAdminService } from './admin/flow-admin-service.ts';
import { createConnectionAdminService, createSecretStoreAdminService } from './connections/connection-admin-service.ts';
import { createOutboundService } from './connections/outbound-service.ts';
import type { SecretKeyring } from './secrets/secret-keyring.ts';
import type { FlowLimits } from '../workflows/shared/index.ts';
import { createExecutionService } from './executions/execution-service.ts';
import { createRecordService } from './records/record-service.ts';
import { authInterceptor } from './rpc/auth-interceptor.ts';
import { errorInterceptor } from './rpc/error-interceptor.ts';
import { requestScopeInterceptor } from './rpc/request-scope-interceptor.ts';
import type { ExecutionStarter } from './temporal/execution-starter.ts';
import type { ChangeAnnouncer } from './cache/change-feed.ts';
import type { WebhookLimits } from './limits/webhook-limits.ts';
import type { CallerDirectory } from './webhook/caller-directory.ts';
import type { PublishedFlowLookup } from './webhook/published-flow-lookup.ts';
import { createWebhookService } from './webhook/webhook-service.ts';

export interface EngineDeps {
  orm: MikroORM;
  publishedFlows: PublishedFlowLookup;
  callers: CallerDirectory;
  limits: WebhookLimits;
  changes: ChangeAnnouncer;
  starter: ExecutionStarter;
  /** For ExecutionService: reads executions of this task queue. */
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  adminToken: string;
  /** Undefined only when the engine was explicitly started insecure. */
  serviceToken?: string;
  publicUrl: string;
  instance: string;
  useSearchAttributes: () => boolean;
  /** The secret store's keys (connections). */
  keyring: SecretKeyring;
  /** Bounds checked at publish and handed to every execution. */
  flowLimits: FlowLimits;
}

export interface EngineServer {
  server: Http2Server;
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

export function createEngine(deps: EngineDeps): EngineServer {
  const handler = connectNodeAdapter({
    // Order matters: the request scope is outermost so every line below names the request; errors
    // are mapped next, so auth failures pass through unchanged.
    interceptors: [requestScopeInterceptor(), errorInterceptor(deps.logger), authInterceptor({ adminToken: deps.adminToken, serviceToken: deps.serviceToken }, deps.logger)],
    routes(router) {
      router.service(WebhookService, createWebhookService(deps));
      router.service(FlowAdminService, createFlowAdminService(deps));
      router.service(AppAdminService, createAppAdminService(deps));
      router.service(UserAdminService, createUserAdminService(deps));
      router.service(RecordService, createRecordService(deps));
      router.service(ExecutionService, createExecutionService(deps));
      router.service(ConnectionAdminService, createConnectionAdminService(deps));
      router.service(SecretStoreAdminService, createSecretStoreAdminService(deps));
      router.service(OutboundService, createOutboundService(deps));
    },
  });
  const server = createServer(handler);
  // Idle HTTP/2 sessions (e.g. the facade's) would otherwise keep close() waiting forever.
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.close();
      });
    },
  };
}

