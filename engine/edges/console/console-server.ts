// The console's own listener (FLOWHOOK_CONSOLE_PORT), in the engine process:
// browsers speak HTTP/1.1 (or TLS), not the engine port's cleartext HTTP/2, so
// the console gets a port of its own, serving
//   /<service>/<method>             the Connect protocol (connect-web's), for the admin
//                                   services the pages call — the engine's own service
//                                   implementations, behind the console's gate and roles
//   /auth/oidc/start, …/callback    OpenID Connect sign-in, when configured
//   everything else (GET)           the built pages (console-assets.ts)
// One origin for pages and calls: no CORS, ever. Every answer carries the
// console's Content-Security-Policy and friends (console-http.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceImpl } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AlertService } from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import type { AppAdminService } from '../../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import type { AuditService } from '../../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import type { ConnectionAdminService } from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import {
  ConsoleService,
  ConsoleSessionAdminService,
} from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import type { ExecutionService } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { DeliveryService } from '../../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import type { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import type { HookSecretAdminService } from '../../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import type { ServiceAccountAdminService } from '../../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import type { UserAdminService } from '../../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { isLoopbackHost } from '../../../common/loopback-host.ts';
import { auditInterceptor } from '../rpc/audit-interceptor.ts';
import type { SignInRefusal } from '../../domain/metrics/engine-metrics.ts';
import { errorInterceptor } from '../rpc/error-interceptor.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import type { ServiceAccountDirectory } from '../../domain/callers/service-account-directory.ts';
import { browserCookie } from '../http/browser-sessions.ts';
import { answerFailure } from '../http/http-answers.ts';
import { startWebServer, type WebServer } from '../http/web-server.ts';
import { serveAssets } from './console-assets.ts';
import { consoleAuthorization } from './console-authorization.ts';
import type { ConsoleConfig } from './console-config.ts';
import { consoleCallContext, consoleGate } from './console-gate.ts';
import { securityHeaders, sendText } from './console-http.ts';
import { createOidcClient } from './console-oidc.ts';
import type { ConsoleSite } from './console-request-checks.ts';
import { refusalOfPage } from './console-request-checks.ts';
import { CONSOLE_PEOPLE_SERVICES, CONSOLE_SERVICES } from './console-rpc-policy.ts';
import { createConsoleService } from './console-service.ts';
import { ConsoleSessions } from './console-sessions.ts';
import { OIDC_CALLBACK_PATH, OIDC_START_PATH, oidcRoute } from './oidc-routes.ts';
import { createSessionRecheck } from './session-recheck.ts';
import { SignInLimiter } from './sign-in-limiter.ts';

/** The engine's service implementations the console serves (the same objects the engine port serves). */
export interface ConsoleServedServices {
  flowAdmin: ServiceImpl<typeof FlowAdminService>;
  executions: ServiceImpl<typeof ExecutionService>;
  connections: ServiceImpl<typeof ConnectionAdminService>;
  audit: ServiceImpl<typeof AuditService>;
  users: ServiceImpl<typeof UserAdminService>;
  apps: ServiceImpl<typeof AppAdminService>;
  serviceAccounts: ServiceImpl<typeof ServiceAccountAdminService>;
  hookSecrets: ServiceImpl<typeof HookSecretAdminService>;
  consoleSessions: ServiceImpl<typeof ConsoleSessionAdminService>;
  deliveries: ServiceImpl<typeof DeliveryService>;
  alerts: ServiceImpl<typeof AlertService>;
}

export interface ConsoleServerDeps {
  config: ConsoleConfig;
  services: ConsoleServedServices;
  accounts: ServiceAccountDirectory;
  orm: MikroORM;
  /** The deployment key the CSRF tokens are derived with (engine_key `console-csrf`). */
  csrfKey: Buffer;
  /** The deployment key admin-token sessions keep their token's keyed hash under (engine_key `console-session`). */
  credentialKey: Buffer;
  /** The secret store's keys: they seal the refresh tokens of OpenID Connect sessions. */
  keyring: SecretKeyring;
  /** Engines live now: the sign-in budget of the deployment is shared among them. */
  liveEngines: () => number;
  signInRefused: (reason: SignInRefusal) => void;
  maxMessageBytes: number;
  logger: Logger;
  /** `flowhook start`'s default port: when it is taken (another start), listen on a free one instead of failing. */
  freePortIfTaken?: boolean;
}

/** The console listening; its `url` (e.g. http://127.0.0.1:7054, or FLOWHOOK_CONSOLE_PUBLIC_URL) is what the banner prints. */
export type RunningConsoleServer = WebServer;

/** `/flowhook.engine.v1.FlowAdminService/ListFlows`: the shape of a Connect call's path. */
const RPC_PATH = /^\/[A-Za-z0-9_.]+\/[A-Za-z0-9_]+$/;

export async function startConsoleServer(deps: ConsoleServerDeps): Promise<RunningConsoleServer> {
  const { config, logger } = deps;
  const secure = config.tls !== undefined || (config.publicUrl?.startsWith('https:') ?? false);
  const site: ConsoleSite = {
    publicOrigin: config.publicUrl ? new URL(config.publicUrl).origin : undefined,
    scheme: config.tls ? 'https' : 'http',
    loopbackOnly: !config.publicUrl && isLoopbackHost(config.host),
  };
  const sessions = new ConsoleSessions(deps.orm, config.sessionTtlMs);
  // HttpOnly and SameSite=Strict; Secure and `__Host-` prefixed (no other host of the domain can set or shadow it) whenever
  // the browser reaches the console over TLS: `__Host-` cookies must be Secure, so over plain http (loopback) the plain name.
  const cookie = browserCookie(secure ? '__Host-flowhook-console' : 'flowhook_console_session', secure);
  const headers = securityHeaders(secure);
  const oidc = config.oidc ? createOidcClient(config.oidc) : undefined;
  const recheck =
    oidc &&
    createSessionRecheck({
      orm: deps.orm,
      sessions,
      client: oidc,
      keyring: deps.keyring,
      intervalMs: config.oidcRecheckMs,
      logger,
    });
  const limiter = new SignInLimiter(undefined, deps.liveEngines);

  const rpc = connectNodeAdapter({
    // The audit log sits outside the roles check, so a refused attempt is on record with the person, as on the engine port.
    interceptors: [auditInterceptor(deps.orm, logger), consoleAuthorization(), errorInterceptor(logger)],
    contextValues: consoleCallContext,
    readMaxBytes: deps.maxMessageBytes,
    // Browsers speak the Connect protocol over HTTP/1.1; gRPC needs HTTP/2 trailers.
    grpc: false,
    grpcWeb: false,
    routes(router) {
      router.service(
        ConsoleService,
        createConsoleService({
          sessions,
          accounts: deps.accounts,
          csrfKey: deps.csrfKey,
          credentialKey: deps.credentialKey,
          cookie,
          limiter,
          signInRefused: deps.signInRefused,
          logger,
          oidc: oidc && { issuer: oidc.issuer, startPath: OIDC_START_PATH },
        }),
      );
      const [flowAdmin, executions, connections, audit, alerts] = CONSOLE_SERVICES;
      router.service(flowAdmin, deps.services.flowAdmin);
      router.service(executions, deps.services.executions);
      router.service(connections, deps.services.connections);
      router.service(audit, deps.services.audit);
      router.service(alerts, deps.services.alerts);
      const [users, apps, serviceAccounts, hookSecrets] = CONSOLE_PEOPLE_SERVICES;
      router.service(users, deps.services.users);
      router.service(apps, deps.services.apps);
      router.service(serviceAccounts, deps.services.serviceAccounts);
      router.service(hookSecrets, deps.services.hookSecrets);
      router.service(ConsoleSessionAdminService, deps.services.consoleSessions);
      router.service(DeliveryService, deps.services.deliveries);
    },
  });
  const gated = consoleGate(rpc, {
    site,
    sessions,
    accounts: deps.accounts,
    csrfKey: deps.csrfKey,
    credentialKey: deps.credentialKey,
    recheck,
    cookie,
    logger,
  });
  const assets = serveAssets(config.assetsDir, headers);

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const path = new URL(req.url ?? '/', 'http://console').pathname;
    const method = req.method ?? 'GET';
    if (RPC_PATH.test(path) && method === 'POST') return gated(req, res);
    if (method !== 'GET' && method !== 'HEAD') return sendText(res, 405, 'method not allowed', { allow: 'GET, HEAD' });
    const refusal = refusalOfPage(site, { host: req.headers.host });
    if (refusal) return sendText(res, 421, refusal);
    const answer =
      (path === OIDC_START_PATH || path === OIDC_CALLBACK_PATH) && oidc
        ? oidcRoute(req, res, path, {
            client: oidc,
            recheck: recheck!,
            site,
            sessions,
            cookie,
            secure,
            headers,
            logger,
          })
        : assets(req, res);
    answer.catch((error: unknown) => {
      logger.error({ reason: error instanceof Error ? error.message : String(error), path }, 'console: request failed');
      answerFailure(res, () => sendText(res, 500, 'internal error'));
    });
  };
  const server = await startWebServer({
    host: config.host,
    port: config.port,
    tls: config.tls,
    handler,
    portTaken() {
      if (!deps.freePortIfTaken)
        return new Error(
          `the console's port ${config.port} on ${config.host} is already in use: choose another with FLOWHOOK_CONSOLE_PORT`,
        );
      logger.warn(
        { port: config.port },
        "the console's usual port is taken: it listens on a free one (the banner names it; FLOWHOOK_CONSOLE_PORT fixes one)",
      );
      return 0;
    },
  });
  const url = config.publicUrl ?? server.url;
  logger.info({ url, oidc: config.oidc ? config.oidc.issuer : 'off' }, 'console listening');
  return {
    port: server.port,
    url,
    async close() {
      await server.close();
    },
  };
}
