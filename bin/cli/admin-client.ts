// The CLI's connection to the engine's admin services (FlowAdminService,
// AppAdminService, UserAdminService, ConnectionAdminService,
// SecretStoreAdminService, ServiceAccountAdminService, HookSecretAdminService) as one client: Connect over HTTP/2
// cleartext (the engine serves h2c only), the admin token on every call.
import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { AppAdminService } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { AuditService } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { ConnectionAdminService } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { HookSecretAdminService } from '../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { SecretStoreAdminService } from '../../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { UserAdminService } from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { ServiceAccountAdminService } from '../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { CliError } from './admin-action.ts';
import { readCliConfig, requireAdminToken } from './cli-config.ts';
import { engineAuthInterceptor } from '../../common/engine-auth-interceptor.ts';
import { engineTransportOptions, type EngineClientTls } from '../../common/engine-client-tls.ts';

/** The method names of the services are distinct, so one object holds them all. */
export type AdminClient = Client<typeof FlowAdminService> &
  Client<typeof AppAdminService> &
  Client<typeof UserAdminService> &
  Client<typeof ConnectionAdminService> &
  Client<typeof SecretStoreAdminService> &
  Client<typeof ServiceAccountAdminService> &
  Client<typeof HookSecretAdminService>;

export interface AdminClientOptions {
  engineUrl: string;
  adminToken: string;
  engineTls?: EngineClientTls;
  /** Per call; an engine that accepts the connection but never answers should not hang the CLI. */
  timeoutMs?: number;
}

// Socket-level failures: the engine is not there (or not reachable), as
// opposed to an engine that answered with an error.
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
]);

/** Connect over HTTP/2 to the engine with the admin token; any admin-token service can use it. */
export function createAdminTransport(options: AdminClientOptions): Transport {
  return createConnectTransport({
    baseUrl: options.engineUrl,
    httpVersion: '2',
    ...engineTransportOptions(options.engineTls),
    defaultTimeoutMs: options.timeoutMs ?? 60_000,
    interceptors: [unreachableInterceptor(options.engineUrl), engineAuthInterceptor(options.adminToken)],
  });
}

export function createAdminClient(options: AdminClientOptions): AdminClient {
  // Idle HTTP/2 sessions are unref'd by connect-node, so the CLI exits once
  // its calls are done without closing anything.
  return adminClientOn(createAdminTransport(options));
}

/** Every admin service on one transport (tests pass an in-memory one). */
export function adminClientOn(transport: Transport): AdminClient {
  return {
    ...createClient(FlowAdminService, transport),
    ...createClient(AppAdminService, transport),
    ...createClient(UserAdminService, transport),
    ...createClient(ConnectionAdminService, transport),
    ...createClient(SecretStoreAdminService, transport),
    ...createClient(ServiceAccountAdminService, transport),
    ...createClient(HookSecretAdminService, transport),
  };
}

/**
 * The audit log's reader (`flowhook audit list`), on the same transport and token. Its own
 * client rather than part of AdminClient, so code that builds an AdminClient need not serve it.
 */
export type AuditClient = Client<typeof AuditService>;

export function auditClientFromEnvironment(): AuditClient {
  return createClient(AuditService, createAdminTransport(adminOptionsFromEnvironment()));
}

/** The real client: engine URL and admin token from the environment, read on first use. */
export function adminClientFromEnvironment(): AdminClient {
  return createAdminClient(adminOptionsFromEnvironment());
}

/** Engine URL and admin token from the environment, as CLI errors when missing or wrong. */
export function adminOptionsFromEnvironment(): AdminClientOptions {
  let config;
  try {
    config = readCliConfig();
  } catch (error) {
    throw new CliError((error as Error).message, Code.InvalidArgument);
  }
  let adminToken: string;
  try {
    adminToken = requireAdminToken(config);
  } catch (error) {
    throw new CliError((error as Error).message, Code.Unauthenticated);
  }
  return { engineUrl: config.engineUrl, adminToken, engineTls: config.engineTls };
}

/** Turns "connect ECONNREFUSED …" into a message that says what to do. */
function unreachableInterceptor(engineUrl: string): Interceptor {
  return (next) => async (request) => {
    try {
      return await next(request);
    } catch (error) {
      const cause = error instanceof ConnectError ? error.cause : error;
      const code = (cause as { code?: unknown } | null)?.code;
      if (typeof code !== 'string' || !UNREACHABLE.has(code)) throw error;
      const detail = code === 'ECONNREFUSED' ? '' : ` (${code})`;
      throw new ConnectError(
        `cannot reach the engine at ${engineUrl} — is \`flowhook start\` (or \`flowhook engine\`) running?${detail}`,
        Code.Unavailable,
        undefined,
        undefined,
        cause,
      );
    }
  };
}
