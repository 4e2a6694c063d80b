// The facade process: reads configuration, connects to the engine, serves the
// OData endpoint. Returns a handle that stops it; SIGTERM/SIGINT stop it too
// (the handle's close() is idempotent, so a CLI that also handles signals can
// call it again safely).
import { createFacade, type ListeningFacade } from './app.ts';
import { basicVerifier, type CallerVerifier } from './caller-credentials.ts';
import { readFacadeConfig, type FacadeConfig } from './config.ts';
import { createEngineClient } from './engine-client.ts';
import { createFacadeLogger } from './logger.ts';
import { createFacadeMetrics } from './metrics/facade-metrics.ts';
import { bearerVerifier } from './oauth/bearer-verifier.ts';
import { startTracing } from '../common/tracing/tracing.ts';
import { startComponentMetrics } from '../common/metrics/metrics-listener.ts';
import { createDeliveryReporter } from './delivery-reporter.ts';

export interface RunningFacade {
  port: number;
  /** Where GET /metrics answers loopback clients or the token (FLOWHOOK_FACADE_METRICS_PORT), unless it is off. */
  metrics?: { host: string; port: number };
  close(): Promise<void>;
}

export interface RunFacadeOptions {
  /** Close on SIGTERM/SIGINT (default true). The listeners are removed by close(). */
  handleSignals?: boolean;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

export async function runFacade(
  config: FacadeConfig = readFacadeConfig(),
  options: RunFacadeOptions = {},
): Promise<RunningFacade> {
  const logger = createFacadeLogger(config.logLevel);
  const tracing = await startTracing(config.tracing);
  const tracer = tracing?.tracer('facade');
  const engine = createEngineClient(config, tracer);
  // The 401's challenge names exactly these schemes (app.ts), so a Bearer-only facade never invites Basic.
  const verifiers: CallerVerifier[] = config.basicAuth ? [basicVerifier] : [];
  if (config.oauth) verifiers.push(bearerVerifier(config.oauth, logger));
  const metrics = createFacadeMetrics(config.metricsToken);
  const dropped = metrics.registry.counter(
    'flowhook_facade_deliveries_dropped_total',
    'Delivery log reports dropped because FLOWHOOK_DELIVERY_BUFFER reports already waited for the engine',
    [],
  );
  const deliveries =
    config.deliveryLog &&
    createDeliveryReporter({
      client: engine.deliveryLog,
      logger,
      capacity: config.deliveryLog.capacity,
      dropped: () => dropped.metric.inc(),
    });
  const facade = createFacade({
    config,
    webhookClient: engine.webhook,
    health: engine.health,
    logger,
    verifiers,
    metrics,
    tracer,
    deliveries,
  });
  let server: ListeningFacade;
  try {
    server = await facade.listen();
  } catch (error) {
    await deliveries?.close();
    engine.close();
    metrics.registry.close();
    throw error;
  }
  logger.info(
    {
      host: config.host,
      port: server.port,
      https: config.tls !== undefined,
      bearer: config.oauth !== undefined,
      basic: config.basicAuth,
      instance: config.instance,
      engine: new URL(config.engineUrl).origin,
    },
    'facade listening',
  );
  const metricsListener = await startComponentMetrics('facade', config, {
    metrics: () => metrics.registry.text(),
    logger,
    async undo() {
      await server.close();
      engine.close();
      metrics.registry.close();
    },
  });

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      try {
        await Promise.all([server.close(), metricsListener?.close()]);
        // After the last answer: its report goes too, before the engine connection closes.
        await deliveries?.close();
      } finally {
        engine.close();
        metrics.registry.close();
        await tracing?.flush();
        logger.info('facade stopped');
      }
    })();
    return closing;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'stopping the facade');
    close().catch((error: unknown) =>
      logger.error({ reason: error instanceof Error ? error.message : String(error) }, 'facade stop failed'),
    );
  };
  if (options.handleSignals ?? true) for (const signal of SIGNALS) process.on(signal, onSignal);
  return { port: server.port, metrics: metricsListener?.address, close };
}
