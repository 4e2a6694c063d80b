// The worker process: polls the flow task queue, runs the interpreter
// workflow and its activities.
import { NativeConnection, Worker } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { createWorkerEngineClient, type WorkerEngineClient } from './activities/engine-client.ts';
import { createActivities } from './activities/index.ts';
import { flowDataConverter } from './codec/payload-codec.ts';
import type { WorkerConfig } from './config.ts';
import { temporalTlsOptions } from '../common/temporal/temporal-tls.ts';
import { OAuthTokenCache } from './outbound/oauth-token-cache.ts';
import { startTracing } from '../common/tracing/tracing.ts';
import { workflowBundle } from './workflow-bundle.ts';
import type { WorkerMetrics } from './metrics/worker-metrics.ts';

export { workflowBundle, WORKFLOWS_PATH } from './workflow-bundle.ts';

export interface FlowWorker {
  run(): Promise<void>;
  shutdown(): Promise<void>;
  /** The SDK worker's state (RUNNING while it polls), for readiness. */
  state(): string;
  /** The engine's health service, for readiness. */
  engineHealth: WorkerEngineClient['health'];
}

export async function connectWorker(config: WorkerConfig): Promise<NativeConnection> {
  return NativeConnection.connect({
    address: config.temporal.address,
    tls: temporalTlsOptions(config.temporal.tls),
    apiKey: config.temporal.apiKey,
  });
}

export async function createFlowWorker(
  config: WorkerConfig,
  connection: NativeConnection,
  metrics?: WorkerMetrics,
): Promise<FlowWorker> {
  const tracing = await startTracing(config.tracing);
  const tracer = tracing?.tracer('worker');
  // Loaded only with tracing on: Temporal's OTel interceptors are memory a worker without tracing does not need.
  const traced = tracing ? (await import('./worker-tracing.ts')).workerTracingOptions(tracing) : undefined;
  const engine = createWorkerEngineClient({ ...config, tracer });
  const dataConverter = flowDataConverter(config.payloadKeys);
  // Flow control's local activities signal coordinators over the worker's own connection.
  const temporal = new Client({ connection, namespace: config.temporal.namespace, dataConverter });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueue,
    workflowBundle: await workflowBundle(config.workflowStackTraces, tracing !== undefined),
    dataConverter,
    activities: createActivities({
      records: engine.records,
      outbound: engine.outbound,
      callbacks: engine.callbacks,
      alerts: engine.alerts,
      housekeeping: engine.housekeeping,
      temporal,
      policy: config.egress,
      tokens: new OAuthTokenCache(),
      maxResponseBytes: config.httpMaxResponseBytes,
      maxJsonDepth: config.httpMaxJsonDepth,
      tracer,
      meterOutbound: metrics?.outbound,
    }),
    ...(traced && { interceptors: { activity: traced.activityInterceptors } }),
    // Every worker registers the step sink: the workflow bundle reports each step to it.
    sinks: { ...traced?.sinks, ...metrics?.sinks },
    maxConcurrentWorkflowTaskExecutions: config.maxConcurrentWorkflowTasks,
    maxConcurrentActivityTaskExecutions: config.maxConcurrentActivities,
    // Short flows: keep executions cached so the next task skips replay (each costs memory).
    maxCachedWorkflows: config.maxCachedWorkflows,
    shutdownGraceTime: '10s',
  });
  let running: Promise<void> | undefined;
  return {
    run() {
      running ??= worker.run();
      return running;
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      engine.close();
      await tracing?.flush();
    },
    state: () => worker.getState(),
    engineHealth: engine.health,
  };
}
