// The worker process: polls the flow task queue, runs the interpreter
// workflow and its activities.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { createWorkerEngineClient } from './activities/engine-client.ts';
import { createActivities } from './activities/index.ts';
import { flowDataConverter, PAYLOAD_CONVERTER_PATH } from './codec/payload-codec.ts';
import type { WorkerConfig } from './config.ts';
import { temporalTlsOptions } from './shared/temporal-tls.ts';
import { OAuthTokenCache } from './outbound/oauth-token-cache.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('./index.ts', import.meta.url));
const FORMULA_EVALUATOR_PATH = fileURLToPath(new URL('./formula/formula-evaluator.ts', import.meta.url));
const NO_STACK_TRACES_PATH = fileURLToPath(new URL('./sandbox-stack-traces.ts', import.meta.url));

export interface FlowWorker {
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

const bundles = new Map<boolean, Promise<WorkflowBundle>>();

/** Bundles the workflow code once per process and variant (webpack takes a few seconds). */
export function workflowBundle(stackTraces = false): Promise<WorkflowBundle> {
  let bundle = bundles.get(stackTraces);
  if (!bundle) {
    bundle = bundleFor(stackTraces);
    bundles.set(stackTraces, bundle);
  }
  return bundle;
}

function bundleFor(stackTraces: boolean): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    failureConverterPath: PAYLOAD_CONVERTER_PATH,
    logger: quietBundlerLogger,
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

export async function createFlowWorker(config: WorkerConfig, connection: NativeConnection): Promise<FlowWorker> {
  const engine = createWorkerEngineClient(config);
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueue,
    workflowBundle: await workflowBundle(config.workflowStackTraces),
    dataConverter: flowDataConverter(config.payloadKey),
    activities: createActivities({
      records: engine.records,
      outbound: engine.outbound,
      policy: config.egress,
      tokens: new OAuthTokenCache(),
      maxResponseBytes: config.httpMaxResponseBytes,
      maxJsonDepth: config.httpMaxJsonDepth,
    }),
    maxConcurrentWorkflowTaskExecutions: config.maxConcurrentWorkflowTasks,
    maxConcurrentActivityTaskExecutions: config.maxConcurrentActivities,
    // Short flows: keep executions cached so the next task skips replay.
    maxCachedWorkflows: 1000,
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
    },
  };
}
