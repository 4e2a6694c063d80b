// The worker's configuration, read once from the environment.
import { readBool } from '../common/env-values.ts';
import { readEngineToken } from '../common/engine-token.ts';
import { readEngineClientTls, type EngineClientTls } from '../common/engine-client-tls.ts';
import { readPayloadKeyring, type PayloadKeyring } from './codec/payload-keyring.ts';
import { DEFAULT_TASK_QUEUE, readTemporalSettings, type TemporalSettings } from './shared/index.ts';
import { MAX_JSON_DEPTH } from '../common/json-depth.ts';
import { EGRESS_ALLOW_VARIABLE, parseEgressRules, type EgressPolicy } from './shared/egress-policy.ts';
import { readTracingConfig, type TracingConfig } from '../common/tracing/tracing-config.ts';
import { readMetricsListener, readMetricsToken, type MetricsListenerSettings } from '../common/metrics/metrics-config.ts';
import { withoutTrailingSlashes } from '../common/trailing-slashes.ts';

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

/** See README, Performance: what the cache costs in memory and saves in replays. */
export const DEFAULT_CACHED_WORKFLOWS = 1000;

export function readWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  return Object.freeze({
    temporal: readTemporalSettings(env),
    taskQueue: env.FLOWHOOK_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    maxConcurrentWorkflowTasks: positiveInt(env, 'FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY', 100),
    maxConcurrentActivities: positiveInt(env, 'FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY', 100),
    maxCachedWorkflows: positiveInt(env, 'FLOWHOOK_WORKER_CACHED_WORKFLOWS', DEFAULT_CACHED_WORKFLOWS),
    logLevel: logLevel(env, 'FLOWHOOK_LOG_LEVEL'),
    engineUrl: httpUrl(env, 'FLOWHOOK_ENGINE_URL', 'http://127.0.0.1:7049'),
    engineToken: readEngineToken(env, 'worker'),
    engineTls: readEngineClientTls(env, httpUrl(env, 'FLOWHOOK_ENGINE_URL', 'http://127.0.0.1:7049')),
    payloadKeys: readPayloadKeyring(env),
    workflowStackTraces: readBool(env, 'FLOWHOOK_WORKFLOW_STACK_TRACES'),
    egress: Object.freeze({ allow: parseEgressRules(env[EGRESS_ALLOW_VARIABLE] ?? '', EGRESS_ALLOW_VARIABLE), ownPorts: ownPorts(env) }),
    httpMaxResponseBytes: positiveInt(env, 'FLOWHOOK_HTTP_MAX_RESPONSE_BYTES', DEFAULT_MAX_RESPONSE_BYTES),
    httpMaxJsonDepth: positiveInt(env, 'FLOWHOOK_HTTP_MAX_JSON_DEPTH', MAX_JSON_DEPTH),
    tracing: readTracingConfig(env),
    metrics: readMetricsListener(env, 'FLOWHOOK_WORKER_METRICS_PORT', 'FLOWHOOK_METRICS_HOST', DEFAULT_METRICS_PORT),
    metricsToken: readMetricsToken(env, 'FLOWHOOK_METRICS_TOKEN'),
  });
}

const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** After the engine's 7051 (facade 7048, engine 7049, embedded PostgreSQL 7050). */
const DEFAULT_METRICS_PORT = 7052;

/**
 * flowhook's own ports — the defaults and whatever this environment configures — so that a flow
 * cannot reach the engine, the facade, Temporal or PostgreSQL through any address, even one opened
 * by FLOWHOOK_EGRESS_ALLOW, unless a host:port entry names it.
 */
function ownPorts(env: NodeJS.ProcessEnv): Map<number, string> {
  const ports = new Map<number, string>([[7048, 'facade'], [7049, 'engine'], [7050, 'embedded PostgreSQL'], [7233, 'Temporal'], [8233, 'Temporal Web UI']]);
  const add = (port: number | undefined, name: string) => {
    if (port && Number.isInteger(port) && port > 0 && port < 65536) ports.set(port, name);
  };
  const portOfUrl = (raw: string | undefined) => {
    try {
      return raw ? Number(new URL(raw.includes('://') ? raw : `tcp://${raw}`).port) || undefined : undefined;
    } catch {
      return undefined;
    }
  };
  add(Number(env.FLOWHOOK_FACADE_PORT), 'facade');
  add(Number(env.FLOWHOOK_ENGINE_PORT), 'engine');
  add(portOfUrl(env.FLOWHOOK_ENGINE_URL), 'engine');
  add(portOfUrl(env.TEMPORAL_ADDRESS), 'Temporal');
  add(Number(env.FLOWHOOK_TEMPORAL_UI_PORT), 'Temporal Web UI');
  add(Number(env.FLOWHOOK_EMBEDDED_POSTGRES_PORT), 'embedded PostgreSQL');
  // The codec server decrypts payloads: no flow may reach it either (default: `start`'s, next to the Web UI).
  add(Number(env.FLOWHOOK_CODEC_PORT) || Number(env.FLOWHOOK_TEMPORAL_UI_PORT || 8233) + 1, 'codec server');
  // Metrics ports answer loopback clients, and a flow's call on the same host is one: every company's series.
  add(Number(env.FLOWHOOK_ENGINE_METRICS_PORT) || 7051, 'engine metrics');
  add(Number(env.FLOWHOOK_WORKER_METRICS_PORT) || DEFAULT_METRICS_PORT, 'worker metrics');
  add(Number(env.FLOWHOOK_FACADE_METRICS_PORT) || 7053, 'facade metrics');
  add(portOfUrl(env.FLOWHOOK_DATABASE_URL) ?? (env.FLOWHOOK_DATABASE_URL ? 5432 : undefined), 'PostgreSQL');
  return ports;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function logLevel(env: NodeJS.ProcessEnv, name: string): WorkerConfig['logLevel'] {
  const raw = (env[name] || 'info').toLowerCase();
  if (raw === 'debug' || raw === 'info' || raw === 'warn' || raw === 'error') return raw;
  throw new Error(`${name} must be one of debug, info, warn, error; got "${env[name]}"`);
}

function httpUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let protocol = '';
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got "${raw}"`);
  return withoutTrailingSlashes(raw);
}

