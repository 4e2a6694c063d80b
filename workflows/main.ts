// The worker process: connects to Temporal and runs flows until stopped.
import { DefaultLogger, Runtime, type LogLevel, type MetricsExporterConfig } from '@temporalio/worker';
import pino from 'pino';
import { readWorkerConfig, type WorkerConfig } from './config.ts';
import { connectWorker, createFlowWorker } from './worker.ts';
import { startComponentMetrics, type MetricsListener } from '../common/metrics/metrics-listener.ts';
import { createWorkerMetrics } from './metrics/worker-metrics.ts';
import { workerProbes } from './metrics/worker-readiness.ts';
import { sdkMetricsExporter } from './metrics/sdk-metrics.ts';

export interface RunningWorker {
  /** Resolves when the worker has stopped (after shutdown or a fatal error). */
  done: Promise<void>;
  /** Where /metrics, /healthz and /readyz answer (FLOWHOOK_WORKER_METRICS_PORT), unless it is off. */
  metrics?: { host: string; port: number };
  close(): Promise<void>;
}

const TEMPORAL_LEVELS: Record<WorkerConfig['logLevel'], LogLevel> = {
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
};
let runtimeInstalled = false;

/** The SDK's runtime logger, bridged to pino, and its metrics exporter; installed once per process (true: by this call). */
function installRuntimeLogger(level: WorkerConfig['logLevel'], metrics?: MetricsExporterConfig): boolean {
  if (runtimeInstalled) return false;
  runtimeInstalled = true;
  // The SDK passes failures as `error`; without a serializer pino would print them as {}.
  const logger = pino({ name: 'worker', level, serializers: { error: pino.stdSerializers.err } });
  Runtime.install({
    logger: new DefaultLogger(TEMPORAL_LEVELS[level], (entry) => {
      const method =
        entry.level === 'TRACE' ? 'trace' : (entry.level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
      logger[method]({ ...entry.meta }, entry.message);
    }),
    ...(metrics && { telemetryOptions: { metrics } }),
  });
  return true;
}

function failureLog(level: WorkerConfig['logLevel']) {
  return pino({ name: 'worker', level });
}

export async function runWorker(config: WorkerConfig = readWorkerConfig()): Promise<RunningWorker> {
  // The SDK's metrics are per process: the first worker's Runtime decides whether they are exported.
  const sdkMetrics = config.metrics ? await sdkMetricsExporter() : undefined;
  if (installRuntimeLogger(config.logLevel, sdkMetrics?.telemetry)) sdkMetrics?.activate();
  const connection = await connectWorker(config);
  const metrics = createWorkerMetrics();
  const worker = await createFlowWorker(config, connection, metrics);
  const done = worker.run();
  let listener: MetricsListener | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Shut down first: while the worker drains, /readyz already answers 503.
      try {
        await worker.shutdown();
        await connection.close();
      } finally {
        await listener?.close();
        metrics.registry.close();
      }
    })());
  // The SDK's Runtime handles SIGTERM/SIGINT itself and may stop the worker before anyone calls
  // close() (a signal during start-up, while the workflow bundle is built): the worker has
  // stopped then, and an open metrics listener must not keep the process alive.
  void done
    .then(close, (error: unknown) => {
      // The SDK fails the worker when its workflow thread dies (out of memory, say): this process no
      // longer runs any execution, so it says why and stops (`flowhook worker` exits 1, `start` stops all).
      failureLog(config.logLevel).error(
        { reason: error instanceof Error ? error.message : String(error) },
        'the worker failed and stops: no execution runs here any more',
      );
      return close();
    })
    .catch(() => undefined);
  if (config.metrics) {
    listener = await startComponentMetrics('worker', config, {
      metrics: async () => `${(await metrics.registry.text()).trimEnd()}\n${(await sdkMetrics?.scrape()) ?? ''}`,
      probes: workerProbes(
        { workerState: worker.state, temporal: connection, engine: worker.engineHealth },
        metrics.setReady,
      ),
      undo: close,
    });
    // Stopped while the listener was opening: close() has already run without it.
    if (closing) await listener?.close();
  }
  return { done, metrics: listener?.address, close };
}
