// The facade's Koa application: the OData routes (one POST endpoint for every flow) in front of the
// engine's WebhookService. Middleware order is the contract: the error mapping
// is outermost, so every failure (ours, the engine's, the router's) leaves
// through the same table.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import Router, { type RouterMiddleware } from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import {
  authenticationChallenge,
  basicVerifier,
  verifyCallerCredentials,
  type CallerVerifier,
} from './caller-credentials.ts';
import type { FacadeConfig } from './config.ts';
import { defaultPublicUrl } from '../common/default-public-url.ts';
import type { WebhookClient } from './engine-client.ts';
import { errorMapping } from './error-mapping.ts';
import type { FacadeMiddleware, FacadeState } from './facade-context.ts';
import { MethodNotAllowedError, NotImplementedError, RouteNotFoundError } from './http-errors.ts';
import { forwardWebhookCall, readCompanyParameter } from './invoke-route.ts';
import { forwardProviderRequest, HOOKS_ROUTE, onlyPost, routeNamesWithinLimits } from './hooks-route.ts';
import { rawBody } from './raw-body.ts';
import { jsonBody } from './json-body.ts';
import { precheckBasicCaller } from './basic-precheck.ts';
import { registerHealthRoutes, type HealthClient } from './health-routes.ts';
import {
  ANSWER_FUNCTION,
  METADATA_CONTENT_TYPE,
  METADATA_ODATA_VERSION,
  odataMetadataXml,
  RESUME_ACTION,
  WEBHOOK_ACTION,
} from './odata-metadata.ts';
import { CALLBACKS_ROUTE, forwardCallback } from './callbacks-route.ts';
import { forwardResumeCall } from './resume-route.ts';
import { fetchAnswer } from './answer-route.ts';
import { requestContext } from './request-context.ts';
import { recordDeliveries } from './delivery-recorder.ts';
import type { DeliveryReporter } from './delivery-reporter.ts';
import type { FacadeMetrics } from './metrics/facade-metrics.ts';
import { requestTracing } from './request-tracing.ts';
import type { Tracer } from '@opentelemetry/api';

export interface FacadeDeps {
  config: FacadeConfig;
  /** With checkCaller, Basic credentials are checked before the body is read (basic-precheck.ts). */
  webhookClient: Pick<WebhookClient, 'invoke'> &
    Partial<Pick<WebhookClient, 'checkCaller' | 'invokeDirect' | 'getAnswer' | 'deliverCallback' | 'resumeCallback'>>;
  logger: Logger;
  /** The engine's health service: with it, GET /healthz and /readyz are served (health-routes.ts). */
  health?: HealthClient;
  /** Accepted Authorization schemes; default Basic only (main.ts adds Bearer when OAuth issuers are configured). */
  verifiers?: readonly CallerVerifier[];
  /** With it, every request is measured and GET /metrics answers the bearer token (metrics/facade-metrics.ts); loopback scrapers use the metrics port main.ts serves. */
  metrics?: FacadeMetrics;
  /** Set when tracing is on: a span per request, continuing the caller's traceparent (request-tracing.ts). */
  tracer?: Tracer;
  /** With it, every webhook route's request is reported to the delivery log after its answer (delivery-recorder.ts). */
  deliveries?: DeliveryReporter;
}

export interface ListeningFacade {
  port: number;
  server: Server;
  /** Stops accepting connections and waits (bounded) for requests in flight. */
  close(): Promise<void>;
}

export interface Facade {
  app: Koa<FacadeState>;
  /** Listens on the configured host and port (0: a free port). */
  listen(): Promise<ListeningFacade>;
}

// A sync call may wait for a whole sync window; past this, shutdown cuts it
// (the flow itself is durable in Temporal and goes on).
const SHUTDOWN_GRACE_MS = 10_000;

export function createFacade(deps: FacadeDeps): Facade {
  const { config, logger } = deps;
  const app = new Koa<FacadeState>();
  app.on('error', (error: unknown) =>
    logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'response stream error'),
  );

  const target = { publicUrl: config.publicUrl, instance: config.instance };
  // Route paths match case-insensitively (the router's default), like the host platform.
  const router = new Router<FacadeState>();
  const base = '/:instance/ODataV4';
  const client = deps.webhookClient;
  router.get(`${base}/$metadata`, knownInstance(config.instance), serveMetadata());
  if (deps.health) registerHealthRoutes(router, deps.health);
  // The caller's credentials, the company and the JSON body, as every OData action reads them
  // (one precheck, so a caller's accepted credentials are remembered for both actions).
  const callerChain = [
    knownInstance(config.instance),
    verifyCallerCredentials(deps.verifiers ?? [basicVerifier]),
    readCompanyParameter(),
    ...(client.checkCaller ? [precheckBasicCaller({ checkCaller: client.checkCaller })] : []),
    jsonBody(config.maxBodyBytes),
  ];
  router.post(
    `${base}/${WEBHOOK_ACTION}`,
    ...callerChain,
    forwardWebhookCall({ target, webhookClient: deps.webhookClient }),
  );
  // A waitForCallback step with a key, resumed by an authenticated caller (resume-route.ts).
  if (client.resumeCallback) {
    const webhookClient = { resumeCallback: client.resumeCallback.bind(client) };
    router.post(`${base}/${RESUME_ACTION}`, ...callerChain, forwardResumeCall({ target, webhookClient }));
  }
  // The late answer of a sync call (answer-route.ts): the same credentials as the POST, no body.
  if (client.getAnswer) {
    const webhookClient = { getAnswer: client.getAnswer.bind(client) };
    router.get(
      `${base}/${ANSWER_FUNCTION}\\(:key\\)`,
      knownInstance(config.instance),
      verifyCallerCredentials(deps.verifiers ?? [basicVerifier]),
      readCompanyParameter(),
      fetchAnswer({ target, webhookClient }),
    );
  }
  // The provider route: no caller credentials (the engine checks the flow's signature scheme), any content type, raw bytes.
  if (client.invokeDirect) {
    const webhookClient = { invokeDirect: client.invokeDirect.bind(client) };
    router.post(
      HOOKS_ROUTE,
      knownInstance(config.instance),
      routeNamesWithinLimits(),
      rawBody(config.maxBodyBytes),
      forwardProviderRequest({ webhookClient }),
    );
    router.all(HOOKS_ROUTE, onlyPost());
  }
  // A waitForCallback step's URL: the token in the path is the credential, the body raw bytes (callbacks-route.ts).
  if (client.deliverCallback) {
    const webhookClient = { deliverCallback: client.deliverCallback.bind(client) };
    router.post(
      CALLBACKS_ROUTE,
      knownInstance(config.instance),
      rawBody(config.maxBodyBytes),
      forwardCallback({ webhookClient, trustedProxies: config.trustedProxies }),
    );
    router.all(CALLBACKS_ROUTE, onlyPost());
  }

  if (deps.tracer) app.use(requestTracing(deps.tracer));
  // Outside the error mapping, so it counts the status every refusal leaves with.
  if (deps.metrics) app.use(deps.metrics.middleware);
  app.use(errorMapping(logger, authenticationChallenge(deps.verifiers ?? [basicVerifier])));
  app.use(requestContext(logger));
  // Inside the error mapping: it sees the error a refusal leaves with, and on 'close' the status it was given.
  if (deps.deliveries) app.use(recordDeliveries({ reporter: deps.deliveries, trustedProxies: config.trustedProxies }));
  app.use(routingFailures());
  app.use(router.routes());
  app.use(router.allowedMethods());

  return {
    app,
    async listen() {
      const listening = await listen(app, config);
      // Port 0 without FLOWHOOK_PUBLIC_URL: `@odata.context` names the port actually bound.
      if (config.publicUrl === defaultPublicUrl(0, config.tls !== undefined))
        target.publicUrl = defaultPublicUrl(listening.port, config.tls !== undefined);
      return listening;
    },
  };
}

/** The instance segment is compared case-insensitively, like the host platform's server instance. */
function knownInstance(instance: string): RouterMiddleware<FacadeState> {
  const expected = instance.toLowerCase();
  return async function checkInstance(ctx, next) {
    const supplied = ctx.params.instance ?? '';
    if (supplied.toLowerCase() !== expected)
      throw new RouteNotFoundError(`No service instance "${supplied}" on this server`);
    await next();
  };
}

function serveMetadata(): FacadeMiddleware {
  const xml = odataMetadataXml();
  return async function metadata(ctx) {
    // The CSDL document's own version (4.01 for Edm.Untyped), not the webhook answer's 4.0.
    ctx.set('OData-Version', METADATA_ODATA_VERSION);
    ctx.set('Content-Type', METADATA_CONTENT_TYPE);
    ctx.body = xml;
  };
}

/**
 * The router answers unknown paths and wrong methods with a bare status (its
 * `throw` mode would drop the `Allow` header); these become typed errors so
 * the error mapping gives them the OData shape.
 */
function routingFailures(): FacadeMiddleware {
  return async function routingFailure(ctx, next) {
    await next();
    if (ctx.status === 405) throw new MethodNotAllowedError(ctx.method, ctx.response.get('Allow'));
    if (ctx.status === 501) throw new NotImplementedError(ctx.method);
    if (ctx.status === 404 && ctx.body == null) throw new RouteNotFoundError(`No resource at ${ctx.path}`);
  };
}

function listen(app: Koa<FacadeState>, config: FacadeConfig): Promise<ListeningFacade> {
  // The per-flow secret travels in the body, so calls belong on HTTPS: with certificate files the facade speaks it itself.
  const handle = app.callback();
  // Koa's handler settles every request itself (an error becomes an answer and a log line): nothing awaits it.
  const onRequest = (req: IncomingMessage, res: ServerResponse) => void handle(req, res);
  const server = config.tls
    ? createTlsServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, onRequest)
    : createServer(onRequest);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve({ port: (server.address() as AddressInfo).port, server, close });
    });
  });
}
