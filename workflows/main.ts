// The worker process: connects to Temporal and runs flows until stopped.
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import pino from 'pino';
import { readWorkerConfig, type WorkerConfig } from './config.ts';
import { connectWorker, createFlowWorker } from './worker.ts';

export interface RunningWorker {
  /** Resolves when the worker has stopped (after shutdown or a fatal error). */
  done: Promise<void>;
  close(): Promise<void>;
}

const TEMPORAL_LEVELS: Record<WorkerConfig['logLevel'], LogLevel> = { debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' };
let runtimeInstalled = false;

/** The SDK's runtime logger, bridged to pino; installed once per process. */
function installRuntimeLogger(level: WorkerConfig['logLevel']): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // The SDK passes failures as `error`; without a serializer pino would print them as {}.
  const logger = pino({ name: 'worker', level, serializers: { error: pino.stdSerializers.err } });
  Runtime.install({
    logger: new DefaultLogger(TEMPORAL_LEVELS[level], (entry) => {
      const method = entry.level === 'TRACE' ? 'trace' : (entry.level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
      logger[method]({ ...entry.meta }, entry.message);
    }),
  });
}

export async function runWorker(config: WorkerConfig = readWorkerConfig()): Promise<RunningWorker> {
  installRuntimeLogger(config.logLevel);
  const connection = await connectWorker(config);
  const worker = await createFlowWorker(config, connection);
  const done = worker.run();
  return {
    done,
    async close() {
      await worker.shutdown();
      await connection.close();
    },
  };
}
