// The worker's configuration, read once from the environment through the configuration table
// (common/configuration/): a wrong value stops the process with a message naming the variable.
import { readSettings, type Env } from '../common/configuration/read-settings.ts';
import { defaultOf, type Settings } from '../common/configuration/configuration-table.ts';
import { readEngineToken } from '../common/engine-token.ts';
import { readEngineClientTls, type EngineClientTls } from '../common/engine-client-tls.ts';
import { readPayloadKeyring, type PayloadKeyring } from './codec/payload-keyring.ts';
import { readTemporalSettings, type TemporalSettings } from '../common/temporal/temporal-settings.ts';
import { EGRESS_ALLOW_VARIABLE, parseEgressRules, type EgressPolicy } from '../flow/egress-policy.ts';
import { readTracingConfig, type TracingConfig } from '../common/tracing/tracing-config.ts';
import { metricsListener, type MetricsListenerSettings } from '../common/metrics/metrics-config.ts';
import { LOCAL_CONSOLE_PORT } from '../common/configuration/table/console-settings.ts';
import { getHeapStatistics } from 'node:v8';

export interface WorkerConfig {
  temporal: TemporalSettings;
  taskQueue: string;
  /** How many workflow tasks run at once; short flows want this high. */
  maxConcurrentWorkflowTasks: number;
  maxConcurrentActivities: number;
  /** Executions kept in memory between their tasks (FLOWHOOK_WORKER_CACHED_WORKFLOWS): the worker's main memory lever. */
  maxCachedWorkflows: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Where the record activity reaches the engine's RecordService. */
  engineUrl: string;
  /** The worker's service account token (records scope), presented to the engine on every call. */
  engineToken: string;
  /** FLOWHOOK_ENGINE_CA, FLOWHOOK_ENGINE_CLIENT_CERT/_KEY: how to trust (and prove itself to) an https engine. */
  engineTls?: EngineClientTls;
  /** AES-256 keys for doNotLogPayload executions (FLOWHOOK_PAYLOAD_KEY or FLOWHOOK_PAYLOAD_KEY_FILE): the current one and retired ones; the engine must hold the same. */
  payloadKeys?: PayloadKeyring;
  /** Stack traces inside workflow code (off: they cost about half of a short flow's CPU; see sandbox-stack-traces.ts). */
  workflowStackTraces: boolean;
  /** Where flows may call: FLOWHOOK_EGRESS_ALLOW opens internal addresses; flowhook's own ports stay shut unless named. */
  egress: EgressPolicy;
  /** Cap on one answer's body, after decompression (FLOWHOOK_HTTP_MAX_RESPONSE_BYTES). */
  httpMaxResponseBytes: number;
  /** Cap on an answer's JSON/XML nesting (FLOWHOOK_HTTP_MAX_JSON_DEPTH). */
  httpMaxJsonDepth: number;
  /** OpenTelemetry tracing from the standard OTEL_* variables; off unless they configure an exporter. */
  tracing: TracingConfig;
  /** FLOWHOOK_WORKER_METRICS_PORT (default 7052; off) on FLOWHOOK_METRICS_HOST (default 127.0.0.1): /metrics, /healthz, /readyz. */
  metrics?: MetricsListenerSettings;
  /** FLOWHOOK_METRICS_TOKEN: who else than loopback clients may read /metrics. */
  metricsToken?: string;
}

export function readWorkerConfig(env: Env = process.env): WorkerConfig {
  const settings = readSettings(env, 'worker');
  const engineUrl = settings.FLOWHOOK_ENGINE_URL;
  return Object.freeze({
    temporal: readTemporalSettings(settings),
    taskQueue: settings.FLOWHOOK_TASK_QUEUE,
    maxConcurrentWorkflowTasks: settings.FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY,
    maxConcurrentActivities: settings.FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY,
    maxCachedWorkflows:
      settings.FLOWHOOK_WORKER_CACHED_WORKFLOWS ?? cachedWorkflowsForHeap(getHeapStatistics().heap_size_limit),
    logLevel: settings.FLOWHOOK_LOG_LEVEL,
    engineUrl,
    engineToken: readEngineToken(settings, 'worker'),
    engineTls: readEngineClientTls(settings, engineUrl),
    payloadKeys: readPayloadKeyring(settings),
    workflowStackTraces: settings.FLOWHOOK_WORKFLOW_STACK_TRACES,
    egress: Object.freeze({
      allow: parseEgressRules(settings.FLOWHOOK_EGRESS_ALLOW ?? '', EGRESS_ALLOW_VARIABLE),
      ownPorts: ownPorts(settings),
    }),
    httpMaxResponseBytes: settings.FLOWHOOK_HTTP_MAX_RESPONSE_BYTES,
    httpMaxJsonDepth: settings.FLOWHOOK_HTTP_MAX_JSON_DEPTH,
    tracing: readTracingConfig(settings),
    metrics: metricsListener(settings.FLOWHOOK_WORKER_METRICS_PORT, settings.FLOWHOOK_METRICS_HOST),
    metricsToken: settings.FLOWHOOK_METRICS_TOKEN,
  });
}

/** What one cached execution may hold in the workflow thread's heap (a short flow measures ~150 KiB; a large payload more). */
export const CACHED_EXECUTION_BYTES = 384 * 1024;

/**
 * The workflow cache bounded by memory, not only by count: ⅔ of the workflow thread's heap (V8's
 * heap flags apply to every thread of the process) at CACHED_EXECUTION_BYTES each, at most 1000. A
 * cache larger than its thread's heap can hold ends in that thread running out of memory.
 */
export function cachedWorkflowsForHeap(heapLimitBytes: number): number {
  return Math.max(20, Math.min(1000, Math.floor((heapLimitBytes * 2) / 3 / CACHED_EXECUTION_BYTES)));
}

/**
 * flowhook's own ports — the defaults and whatever this environment configures — so that a flow
 * cannot reach the engine, the facade, Temporal or PostgreSQL through any address, even one opened
 * by FLOWHOOK_EGRESS_ALLOW, unless a host:port entry names it.
 */
function ownPorts(settings: Settings<'worker'>): Map<number, string> {
  const ports = new Map<number, string>([
    [7048, 'facade'],
    [7049, 'engine'],
    [7050, 'embedded PostgreSQL'],
    [7233, 'Temporal'],
    [8233, 'Temporal Web UI'],
  ]);
  const add = (port: number | undefined, name: string) => {
    if (port && port > 0 && port < 65536) ports.set(port, name);
  };
  // A listener that is off, or on a free port, still has its usual port kept shut.
  const listening = (
    name: 'FLOWHOOK_ENGINE_METRICS_PORT' | 'FLOWHOOK_WORKER_METRICS_PORT' | 'FLOWHOOK_FACADE_METRICS_PORT',
  ) => {
    const port = settings[name];
    return port !== 'off' && port > 0 ? port : (defaultOf(name) as number);
  };
  const portOfUrl = (raw: string | undefined) => {
    try {
      return raw ? Number(new URL(raw.includes('://') ? raw : `tcp://${raw}`).port) || undefined : undefined;
    } catch {
      return undefined;
    }
  };
  add(settings.FLOWHOOK_FACADE_PORT, 'facade');
  add(settings.FLOWHOOK_ENGINE_PORT, 'engine');
  add(portOfUrl(settings.FLOWHOOK_ENGINE_URL), 'engine');
  add(portOfUrl(settings.TEMPORAL_ADDRESS), 'Temporal');
  add(settings.FLOWHOOK_TEMPORAL_UI_PORT, 'Temporal Web UI');
  add(settings.FLOWHOOK_EMBEDDED_POSTGRES_PORT, 'embedded PostgreSQL');
  // The codec server decrypts payloads: no flow may reach it either (default: `start`'s, next to the Web UI).
  const codec = settings.FLOWHOOK_CODEC_PORT;
  add(typeof codec === 'number' && codec > 0 ? codec : settings.FLOWHOOK_TEMPORAL_UI_PORT + 1, 'codec server');
  // The console serves admin actions to signed-in people; a flow has no business there (default: `start`'s).
  const consolePort = settings.FLOWHOOK_CONSOLE_PORT;
  add(typeof consolePort === 'number' && consolePort > 0 ? consolePort : LOCAL_CONSOLE_PORT, 'console');
  // Metrics ports answer loopback clients, and a flow's call on the same host is one: every company's series.
  add(listening('FLOWHOOK_ENGINE_METRICS_PORT'), 'engine metrics');
  add(listening('FLOWHOOK_WORKER_METRICS_PORT'), 'worker metrics');
  add(listening('FLOWHOOK_FACADE_METRICS_PORT'), 'facade metrics');
  add(portOfUrl(settings.FLOWHOOK_DATABASE_URL) ?? (settings.FLOWHOOK_DATABASE_URL ? 5432 : undefined), 'PostgreSQL');
  return ports;
}
