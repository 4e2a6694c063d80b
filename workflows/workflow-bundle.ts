// The workflow bundle (webpack over workflows/index.ts and what it imports),
// built in a short-lived child process: webpack's peak (several hundred MiB)
// is then never part of the worker's resident memory, which V8 does not hand
// back to the system after a build. The child prints the bundle's code; the
// worker keeps only that string. Run directly (`node workflow-bundle.ts
// <stackTraces> <tracing>`), this file is that child.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { PAYLOAD_CONVERTER_PATH } from './codec/payload-codec.ts';

const run = promisify(execFile);
const SELF = fileURLToPath(import.meta.url);
export const WORKFLOWS_PATH = fileURLToPath(new URL('./index.ts', import.meta.url));
const FORMULA_EVALUATOR_PATH = fileURLToPath(new URL('../flow/formula/formula-evaluator.ts', import.meta.url));
const NO_STACK_TRACES_PATH = fileURLToPath(new URL('./sandbox-stack-traces.ts', import.meta.url));
/** The generated protobuf descriptors the sandbox reads (field paths, connection kinds): immutable once booted. */
const PROTO_DESCRIPTOR_PATHS = ['flowhook/flow/v1/flow_pb.js', 'flowhook/engine/v1/connection_admin_service_pb.js'].map(
  (file) => fileURLToPath(new URL(`../proto/gen/${file}`, import.meta.url)),
);

const bundles = new Map<string, Promise<WorkflowBundle>>();

/** Bundles the workflow code once per process and variant (webpack takes a few seconds). */
export function workflowBundle(stackTraces = false, tracing = false): Promise<WorkflowBundle> {
  const variant = `${stackTraces}/${tracing}`;
  let bundle = bundles.get(variant);
  if (!bundle) {
    bundle = bundleInChild(stackTraces, tracing);
    bundles.set(variant, bundle);
    bundle.catch(() => bundles.delete(variant));
  }
  return bundle;
}

async function bundleInChild(stackTraces: boolean, tracing: boolean): Promise<WorkflowBundle> {
  // The operator's heap flags (NODE_OPTIONS) are sized for the worker, not for webpack: not passed on.
  const env = { ...process.env, NODE_OPTIONS: '' };
  try {
    const { stdout } = await run(process.execPath, [SELF, String(stackTraces), String(tracing)], {
      env,
      maxBuffer: 256 * 1024 * 1024,
      timeout: 5 * 60_000,
    });
    return { code: stdout };
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(
      `bundling the workflow code failed: ${(failure.stderr || failure.message).trim().split('\n').slice(-8).join('\n')}`,
    );
  }
}

function bundleFor(stackTraces: boolean, tracing: boolean): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    failureConverterPath: PAYLOAD_CONVERTER_PATH,
    logger: quietBundlerLogger,
    // Tracing off: the sandbox carries no OpenTelemetry code at all.
    workflowInterceptorModules: tracing ? [workflowTracingModule()] : [],
    // Loaded once per worker thread and shared by all executions, instead of once per execution:
    // JSONata builds its whole function library on load, which cost more CPU than a short flow, and
    // the formula evaluator's cache of compiled expressions only pays off when it outlives one
    // execution. Both hold no per-execution state (each evaluation gets its own frame and budget).
    // Booting the protobuf descriptors cost each new execution ~8 ms of the workflow thread (a
    // profile of a one-key burst, where every execution is new to the worker); they are immutable.
    preloadModules: [
      'jsonata',
      FORMULA_EVALUATOR_PATH,
      ...PROTO_DESCRIPTOR_PATHS,
      ...(stackTraces ? [] : [NO_STACK_TRACES_PATH]),
    ],
  });
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  // stderr: stdout carries the bundle.
  warn: (message: string) => console.error(message),
  error: (message: string) => console.error(message),
};

if (process.argv[1] === SELF) {
  const [stackTraces, tracing] = process.argv.slice(2).map((flag) => flag === 'true');
  const { code } = await bundleFor(stackTraces ?? false, tracing ?? false);
  process.stdout.write(code);
}

/**
 * Temporal's OTel workflow interceptors (the sandbox half of worker-tracing.ts), resolved, not loaded,
 * for a traced bundle only: they must be bundled with the workflow code (a prebuilt bundle ignores
 * WorkerOptions.interceptors.workflowModules).
 */
function workflowTracingModule(): string {
  return createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');
}
