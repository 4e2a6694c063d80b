// The small HTTP listener the engine, the worker and the facade serve their
// metrics on (the facade's public port answers /metrics only with the token,
// facade/metrics/). GET /metrics follows the access rule of metrics-access.ts;
// probes (the worker's /healthz and /readyz) answer anyone, since they say no
// more than ready or not.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsAccess } from './metrics-access.ts';
import type { MetricsListenerSettings } from './metrics-config.ts';
import { METRICS_CONTENT_TYPE } from './metrics-registry.ts';

export interface ProbeAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface MetricsListenerOptions extends MetricsListenerSettings {
  token: string | undefined;
  /** The exposition text. */
  metrics(): Promise<string>;
  /** Unauthenticated JSON probes by path, e.g. `/readyz`. */
  probes?: Readonly<Record<string, () => Promise<ProbeAnswer> | ProbeAnswer>>;
  /** For failures while answering (the reason only; nothing from the request). */
  onError?(reason: string): void;
}

export interface MetricsListener {
  port: number;
  /** Where it listens, as its component reports it. */
  address: MetricsListenerSettings;
  close(): Promise<void>;
}

export function startMetricsListener(options: MetricsListenerOptions): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    answer(options, request, response).catch((error: unknown) => {
      options.onError?.(error instanceof Error ? error.message : String(error));
      if (!response.headersSent) send(response, 500, 'text/plain; charset=utf-8', 'metrics unavailable\n');
      else response.destroy();
    });
  });
  // A scraper keeps its connection open; close() must not wait for it.
  server.keepAliveTimeout = 5000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      resolve({
        port,
        address: { host: options.host, port },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

export interface ComponentMetricsOptions extends Omit<MetricsListenerOptions, 'host' | 'port' | 'token' | 'onError'> {
  /** Told of failed scrapes, and that the listener is open (the component's pino logger). */
  logger?: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /** Stops what the component has started, when its metrics port cannot be opened. */
  undo(): Promise<void>;
}

/** A component's metrics settings (FLOWHOOK_<COMPONENT>_METRICS_PORT, FLOWHOOK_METRICS_HOST, FLOWHOOK_METRICS_TOKEN). */
export interface ComponentMetricsConfig {
  metrics?: MetricsListenerSettings;
  metricsToken?: string;
}

/**
 * A component's metrics listener, or undefined when its metrics port is off. When it cannot open, the
 * component is stopped (`undo`) and the error names the port and its variable.
 */
export async function startComponentMetrics(
  component: 'engine' | 'facade' | 'worker',
  config: ComponentMetricsConfig,
  options: ComponentMetricsOptions,
): Promise<MetricsListener | undefined> {
  const { metrics: where, metricsToken: token } = config;
  if (!where) return undefined;
  const { logger, undo, ...served } = options;
  let listener: MetricsListener;
  try {
    listener = await startMetricsListener({
      ...where,
      ...served,
      token,
      onError: logger && ((reason) => logger.warn({ reason }, 'metrics scrape failed')),
    });
  } catch (error) {
    await undo();
    const variable = `FLOWHOOK_${component.toUpperCase()}_METRICS_PORT`;
    throw new Error(
      `the ${component}'s metrics port ${where.host}:${where.port} (${variable}): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  logger?.info({ host: where.host, port: listener.port, token: token !== undefined }, `${component} metrics listening`);
  return listener;
}

async function answer(
  options: MetricsListenerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    return send(response, 405, 'text/plain; charset=utf-8', 'only GET\n');
  }
  const probe = path ? options.probes?.[path] : undefined;
  if (probe) {
    const { status, body } = await probe();
    return send(response, status, 'application/json', `${JSON.stringify(body)}\n`);
  }
  if (path !== '/metrics') return send(response, 404, 'text/plain; charset=utf-8', 'not found\n');
  const access = metricsAccess(
    { remoteAddress: request.socket.remoteAddress, headers: request.headers },
    options.token,
  );
  if (!access.allowed) {
    if (access.status === 401) response.setHeader('WWW-Authenticate', 'Bearer realm="flowhook metrics"');
    return send(response, access.status, 'text/plain; charset=utf-8', `${access.message}\n`);
  }
  send(response, 200, METRICS_CONTENT_TYPE, await options.metrics());
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
