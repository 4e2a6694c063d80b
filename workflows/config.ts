// The worker's configuration, read once from the environment.
import { readBool } from '../common/env-values.ts';
import { parsePayloadKey } from './codec/payload-codec.ts';
import { DEFAULT_TASK_QUEUE, readTemporalSettings, type TemporalSettings } from './shared/index.ts';

export interface WorkerConfig {
  temporal: TemporalSettings;
  taskQueue: string;
  /** How many workflow tasks run at once; short flows want this high. */
  maxConcurrentWorkflowTasks: number;
  maxConcurrentActivities: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Where the record activity reaches the engine's RecordService. */
  engineUrl: string;
  /** Bearer token the worker presents to the engine; unset sends none. */
  serviceToken?: string;
  /** AES-256 key for doNotLogPayload executions (FLOWHOOK_PAYLOAD_KEY); the engine must use the same. */
  payloadKey?: Buffer;
  /** Stack traces inside workflow code (off: they cost about half of a short flow's CPU; see sandbox-stack-traces.ts). */
  workflowStackTraces: boolean;
}

export function readWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  return Object.freeze({
    temporal: readTemporalSettings(env),
    taskQueue: env.FLOWHOOK_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    maxConcurrentWorkflowTasks: positiveInt(env, 'FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY', 100),
    maxConcurrentActivities: positiveInt(env, 'FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY', 100),
    logLevel: logLevel(env, 'FLOWHOOK_LOG_LEVEL'),
    engineUrl: httpUrl(env, 'FLOWHOOK_ENGINE_URL', 'http://127.0.0.1:7049'),
    serviceToken: env.FLOWHOOK_SERVICE_TOKEN || undefined,
    payloadKey: parsePayloadKey(env.FLOWHOOK_PAYLOAD_KEY),
    workflowStackTraces: readBool(env, 'FLOWHOOK_WORKFLOW_STACK_TRACES'),
  });
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
  return raw.replace(/\/+$/, '');
}

