// The worker process: polls the flow task queue, runs the interpreter
// workflow and its activities.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { createWorkerEngineClient, type WorkerEngineClient } from './activities/engine-client.ts';
import { createActivities } from './activities/index.ts';
import { flowDataConverter, PAYLOAD_CONVERTER_PATH } from './codec/payload-codec.ts';
import type { WorkerConfig } from './config.ts';
import { temporalTlsOptions } from './shared/temporal-tls.ts';
import { OAuthTokenCache } from './outbound/oauth-token-cache.ts';
import { startTracing } from '../common/tracing/tracing.ts';
import { WORKFLOW_TRACING_MODULE, workerTracingOptions } from './worker-tracing.ts';
import type { WorkerMetrics } from './metrics/worker-metrics.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('./index.ts', import.meta.url));
const FORMULA_EVALUATOR_PATH = fileURLToPath(new URL('./formula/formula-evaluator.ts', import.meta.url));
const NO_STACK_TRACES_PATH = fileURLToPath(new URL('./sandbox-stack-traces.ts', import.meta.url));

export interface FlowWorker {
  run(): Promise<void>;
  shutdown(): Promise<void>;
  /** The SDK worker's state (RUNNING while it polls), for readiness. */
  state(): string;
  /** The engine's health service, for readiness. */
  engineHealth: WorkerEngineClient['health'];
}

const bundles = new Map<string, Promise<WorkflowBundle>>();

/** Bundles the workflow code once per process and variant (webpack takes a few seconds). */
export function workflowBundle(stackTraces = false, tracing = false): Promise<WorkflowBundle> {
  const variant = `${stackTraces}/${tracing}`;
  let bundle = bundles.get(variant);
  if (!bundle) {
    bundle = bundleFor(stackTraces, tracing);
    bundles.set(variant, bundle);
  }
  return bundle;
}

function bundleFor(stackTraces: boolean, tracing: boolean): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    failureConverterPath: PAYLOAD_CONVERTER_PATH,
    logger: quietBundlerLogger,
    // Tracing off: the sandbox carries no OpenTelemetry code at all.
    workflowInterceptorModules: tracing ? [WORKFLOW_TRACING_MODULE] : [],
    // Loaded once per worker thread and shared by all executions, instead of once per execution:
    // JSONata builds its whole function library on load, which cost more CPU than a short flow, and
    // the formula evaluator's cache of compiled expressions only pays off when it outlives one
    // execution. Both hold no per-execution state (each evaluation gets its own frame and budget).
    preloadModules: ['jsonata', FORMULA_EVALUATOR_PATH, ...(stackTraces ? [] : [NO_STACK_TRACES_PATH])],
  });
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

export async function connectWorker(config: WorkerConfig): Promise<NativeConnection> {
  return NativeConnection.connect({
    address: config.temporal.address,
    tls: temporalTlsOptions(config.temporal.tls),
    apiKey: config.temporal.apiKey,
  });
}

export async function createFlowWorker(config: WorkerConfig, connection: NativeConnection, metrics?: WorkerMetrics): Promise<FlowWorker> {
  const tracing = startTracing(config.tracing);
  const tracer = tracing?.tracer('worker');
  const traced = tracing ? workerTracingOptions(tracing) : undefined;
  const engine = createWorkerEngineClient({ ...config, tracer });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueue,
    workflowBundle: await workflowBundle(config.workflowStackTraces, tracing !== undefined),
    dataConverter: flowDataConverter(config.payloadKey),
    activities: createActivities({
      records: engine.records,
      outbound: engine.outbound,
      callbacks: engine.callbacks,
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
