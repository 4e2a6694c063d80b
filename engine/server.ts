// The engine's RPC server: HTTP/2 serving Connect, gRPC and gRPC-Web. Every
// RPC passes the service account gate first (rpc/service-account-gate.ts:
// token and scope checked on the headers, before any body is read), then the
// request scope and error interceptors, then the service.
import type { Http2SecureServer, Http2Server, ServerHttp2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { AlertCheckService, AlertService } from '../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { AppAdminService } from '../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { AuditService } from '../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { CallbackService } from '../proto/gen/flowhook/engine/v1/callback_service_pb.js';
import { ConnectionAdminService } from '../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { ConsoleSessionAdminService } from '../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { OutboundService } from '../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { SecretStoreAdminService } from '../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { ServiceAccountAdminService } from '../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { ExecutionService } from '../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FlowAdminService } from '../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { HookSecretAdminService } from '../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { RecordService } from '../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { UserAdminService } from '../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { WebhookService } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { DeliveryLogService, DeliveryService } from '../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { createDeliveryLogService } from './edges/services/delivery-log-service.ts';
import { createDeliveryService } from './edges/services/delivery-service.ts';
import { createRerunPacer, DEFAULT_RERUNS_PER_SECOND } from './domain/reruns/rerun-pacer.ts';
import type { FloodLimits } from './domain/deliveries/flood-bound.ts';
import { HousekeepingService, RetentionAdminService } from '../proto/gen/flowhook/engine/v1/retention_service_pb.js';
import { createHousekeepingService, createRetentionAdminService } from './edges/services/retention-services.ts';
import type { RetentionSettings } from './domain/retention/retention-settings.ts';
import { createAppAdminService, createUserAdminService } from './edges/services/app-admin-service.ts';
import { auditInterceptor } from './edges/rpc/audit-interceptor.ts';
import { createAuditService } from './edges/services/audit-service.ts';
import { createFlowAdminService } from './edges/services/flow-admin-service.ts';
import { createHookSecretAdminService } from './edges/services/hook-secrets-admin-service.ts';
import { createServiceAccountAdminService } from './edges/services/service-account-admin-service.ts';
import {
  createConnectionAdminService,
  createSecretStoreAdminService,
} from './edges/services/connection-admin-service.ts';
import { createOutboundService } from './edges/services/outbound-service.ts';
import { createCallbackService } from './edges/services/callback-service.ts';
import type { CallbackKeys } from './domain/callbacks/callback-digests.ts';
import type { SecretKeyring } from './infrastructure/secret-store/secret-keyring.ts';
import type { FlowLimits } from '../flow/index.ts';
import { createExecutionService } from './edges/services/execution-service.ts';
import { createRecordService } from './edges/services/record-service.ts';
import type { RecordSettings } from './domain/records/record-settings.ts';
import { errorInterceptor } from './edges/rpc/error-interceptor.ts';
import { requestScopeInterceptor } from './edges/rpc/request-scope-interceptor.ts';
import { serviceAccountContext, serviceAccountGate } from './edges/rpc/service-account-gate.ts';
import { resettingAfterAnswer } from './edges/rpc/early-answer-reset.ts';
import { createEngineHttp2Server, tlsRefusalReason, type EngineServerTls } from './edges/rpc/engine-tls.ts';
import type { ServiceAccountDirectory } from './domain/callers/service-account-directory.ts';
import type { ExecutionStarter } from './domain/executions/execution-starter.ts';
import type { ExecutionLiveness } from './domain/executions/execution-liveness.ts';
import type { ChangeAnnouncer } from './infrastructure/cache/change-feed.ts';
import type { WebhookLimits } from './domain/limits/webhook-limits.ts';
import type { CallerDirectory } from './domain/callers/caller-directory.ts';
import type { PublishedFlowLookup } from './domain/flows/published-flow-lookup.ts';
import type { HookSecretLookup } from './domain/direct/hook-secret-lookup.ts';
import type { DeliveryMemory } from './domain/direct/delivery-memory.ts';
import { createWebhookService } from './edges/services/webhook-service.ts';
import type { CallCollector } from './domain/flow-control/call-collector.ts';
import { registerHealth } from './edges/rpc/grpc-health.ts';
import { registerReflection } from './edges/rpc/grpc-reflection.ts';
import { rpcServerTracing } from '../common/tracing/rpc-tracing.ts';
import type { Tracer } from '@opentelemetry/api';
import type { EngineMetrics } from './domain/metrics/engine-metrics.ts';
import type { CallMinutes } from './domain/metrics/call-minutes.ts';
import type { ConsoleServedServices } from './edges/console/console-server.ts';
import { createConsoleSessionAdminService } from './edges/console/console-session-admin-service.ts';
import { createAlertCheckService, createAlertService } from './edges/services/alert-service.ts';
import type { AlertSettings } from './domain/alerts/alert-deps.ts';

/** Every service the engine serves behind the gate (reflection and health list these). */
export const ENGINE_SERVICES = [
  WebhookService,
  FlowAdminService,
  AppAdminService,
  UserAdminService,
  RecordService,
  ExecutionService,
  ConnectionAdminService,
  SecretStoreAdminService,
  OutboundService,
  ServiceAccountAdminService,
  HookSecretAdminService,
  CallbackService,
  AuditService,
  ConsoleSessionAdminService,
  DeliveryLogService,
  DeliveryService,
  AlertService,
  AlertCheckService,
  HousekeepingService,
  RetentionAdminService,
];

export interface EngineDeps {
  orm: MikroORM;
  publishedFlows: PublishedFlowLookup;
  callers: CallerDirectory;
  /** The provider route's signing secrets (cached; engine/domain/direct/hook-secret-lookup.ts). */
  hookSecrets: HookSecretLookup;
  /** Accepted deliveries of provider routes without a signed timestamp (engine/domain/direct/delivery-memory.ts). */
  deliveries: DeliveryMemory;
  limits: WebhookLimits;
  changes: ChangeAnnouncer;
  starter: ExecutionStarter;
  /** Debounce and batch calls go to their collectors (flow-control/call-collector.ts). */
  collector: CallCollector;
  /** For ExecutionService: reads executions of this task queue. */
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  /** Who holds which token (service accounts, and the bootstrap admin token). */
  accounts: ServiceAccountDirectory;
  /** Keys the execution grants (security/execution-grants.ts). */
  grantKey: Buffer;
  /** Whether a grant's execution still runs: a grant works only while it does (security/execution-liveness.ts). */
  liveness: ExecutionLiveness;
  /** Keys idempotency digests (webhook/idempotency.ts). */
  idempotencyKey: Buffer;
  /** Key callback-key lookups and accepted-body digests (callbacks/callback-digests.ts). */
  callbackKeys: CallbackKeys;
  /** Largest message read (readMaxBytes). */
  maxMessageBytes: number;
  /** Serve TLS (and mutual TLS) instead of h2c. */
  tls?: EngineServerTls;
  /** Dependency health name → reachable (health/dependency-probes.ts), live. */
  dependencyStatus?: Readonly<Record<string, boolean>>;
  publicUrl: string;
  instance: string;
  useSearchAttributes: () => boolean;
  /** The secret store's keys (connections, hook secrets). */
  keyring: SecretKeyring;
  /** Bounds checked at publish and handed to every execution. */
  flowLimits: FlowLimits;
  /** FLOWHOOK_RECORD_* (records/record-settings.ts): the record quota; off when absent. */
  records?: RecordSettings;
  /** Re-run starts per second in this process (executions/rerun-pacer.ts); default 5. */
  rerunsPerSecond?: number;
  /** Set when tracing is on: a span per RPC, continuing the caller's traceparent (common/tracing/rpc-tracing.ts). */
  tracer?: Tracer;
  /** The engine's metrics (metrics/engine-metrics.ts); the webhook service records each call in them. */
  metrics?: EngineMetrics;
  /** Those metrics by minute for the console's overview (metrics/call-minutes.ts). */
  callMinutes?: CallMinutes;
  /** FLOWHOOK_TEMPORAL_UI_URL: executions link to their page there. */
  temporalUiUrl?: string;
  /** FLOWHOOK_DELIVERY_REFUSED_PER_SENDER_PER_MINUTE / _PER_MINUTE: the delivery log's flood bound (domain/deliveries/flood-bound.ts). */
  deliveryBound: FloodLimits;
  /** Alert rules' settings (engine/domain/alerts/): evaluation interval, send timeout, egress, console links. */
  alerts: AlertSettings;
  /** FLOWHOOK_*_RETENTION and the schedule's interval (engine/domain/retention/). */
  retention: RetentionSettings;
}

export interface EngineServer {
  server: Http2Server | Http2SecureServer;
  /** The service implementations the console serves too (engine/edges/console/): one set, two listeners. */
  consoleServices: ConsoleServedServices;
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

export function createEngine(deps: EngineDeps): EngineServer {
  // Health answers NOT_SERVING once shutdown begins, so a load balancer stops sending new calls.
  let serving = true;
  // Long-polls of GetAnswer end early on shutdown instead of holding close() for their whole wait.
  const stopping = new AbortController();
  // Re-runs and delivery replays start executions at one pace per engine, together.
  const rerunPacer = createRerunPacer(deps.rerunsPerSecond ?? DEFAULT_RERUNS_PER_SECOND);
  const consoleServices: ConsoleServedServices = {
    flowAdmin: createFlowAdminService(deps),
    executions: createExecutionService({ ...deps, rerunPacer }),
    connections: createConnectionAdminService(deps),
    audit: createAuditService(deps),
    users: createUserAdminService(deps),
    apps: createAppAdminService(deps),
    serviceAccounts: createServiceAccountAdminService(deps),
    hookSecrets: createHookSecretAdminService(deps),
    consoleSessions: createConsoleSessionAdminService(deps),
    deliveries: createDeliveryService({ ...deps, rerunPacer }),
    alerts: createAlertService(deps),
  };
  const handler = connectNodeAdapter({
    // The request scope is outermost so every line below names the request.
    // Tracing (when on) is outside both, so its span covers the call and sees the final Connect code.
    // The audit log (audit/audit-interceptor.ts) sits outside the error mapping for the same reason.
    interceptors: [
      ...(deps.tracer ? [rpcServerTracing(deps.tracer)] : []),
      requestScopeInterceptor(),
      auditInterceptor(deps.orm, deps.logger),
      errorInterceptor(deps.logger),
    ],
    contextValues: serviceAccountContext,
    // Also bounds what a decompressed message may grow to.
    readMaxBytes: deps.maxMessageBytes,
    routes(router) {
      router.service(WebhookService, createWebhookService({ ...deps, stopping: stopping.signal }));
      router.service(FlowAdminService, consoleServices.flowAdmin);
      router.service(AppAdminService, consoleServices.apps);
      router.service(UserAdminService, consoleServices.users);
      router.service(RecordService, createRecordService(deps));
      router.service(ExecutionService, consoleServices.executions);
      router.service(ConnectionAdminService, consoleServices.connections);
      router.service(SecretStoreAdminService, createSecretStoreAdminService(deps));
      router.service(OutboundService, createOutboundService(deps));
      router.service(ServiceAccountAdminService, consoleServices.serviceAccounts);
      router.service(HookSecretAdminService, consoleServices.hookSecrets);
      router.service(CallbackService, createCallbackService(deps));
      router.service(AuditService, consoleServices.audit);
      router.service(ConsoleSessionAdminService, consoleServices.consoleSessions);
      router.service(DeliveryLogService, createDeliveryLogService(deps));
      router.service(DeliveryService, consoleServices.deliveries);
      router.service(HousekeepingService, createHousekeepingService(deps));
      router.service(RetentionAdminService, createRetentionAdminService(deps));
      router.service(AlertService, consoleServices.alerts);
      router.service(AlertCheckService, createAlertCheckService(deps));
      // Open (no token): schemas and liveness only — see rpc/service-account-gate.ts.
      registerReflection(router, ENGINE_SERVICES);
      registerHealth(router, ENGINE_SERVICES, () => serving, undefined, deps.dependencyStatus);
    },
  });
  // An answer Connect gives before reading the whole body (a message over readMaxBytes) stops the rest of it.
  const server = createEngineHttp2Server(
    serviceAccountGate(resettingAfterAnswer(handler), deps.accounts, deps.logger),
    deps.tls,
  );
  // A refused handshake (no client certificate, an unknown CA) is otherwise invisible.
  server.on('tlsClientError', (error: Error, socket: TLSSocket) =>
    deps.logger.warn(
      { reason: tlsRefusalReason(error, socket), remoteAddress: socket.remoteAddress },
      'TLS handshake refused',
    ),
  );
  // Idle HTTP/2 sessions (e.g. the facade's) would otherwise keep close() waiting forever.
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  return {
    server,
    consoleServices,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
      });
    },
    close() {
      serving = false;
      stopping.abort();
      return new Promise((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.close();
      });
    },
  };
}
