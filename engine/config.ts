// The engine's configuration, read once from the environment into a frozen,
// typed object. A wrong value stops the process with a message naming the variable.
import { readBool } from '../common/env-values.ts';
import { refuseSharedServiceToken } from '../common/engine-token.ts';
import { readPayloadKeyring, type PayloadKeyring } from '../workflows/codec/payload-keyring.ts';
import type { WebhookLimitSettings } from './limits/webhook-limits.ts';
import { DEFAULT_RERUNS_PER_SECOND } from './executions/rerun-pacer.ts';
import { DEFAULT_FLOW_LIMITS, DEFAULT_TASK_QUEUE, parseDuration, readTemporalSettings, type FlowLimits, type TemporalSettings } from '../workflows/shared/index.ts';
import { keySourceFromEnv, type KeySource } from './secrets/secret-keyring.ts';
import { changeFeedSettingsFromEnv } from './cache/change-feed.ts';
import { checkEngineExposure, readEngineServerTls, type EngineServerTls } from './rpc/engine-tls.ts';
import { readMetricsListener, readMetricsToken, type MetricsListenerSettings } from '../common/metrics/metrics-config.ts';
import { readCodecServerConfig, type CodecServerConfig } from './codec/codec-config.ts';
import { readTracingConfig, type TracingConfig } from '../common/tracing/tracing-config.ts';
import { readRecordSettings, type RecordSettings } from './records/record-settings.ts';
import { readCallbackRetention } from './callbacks/callback-retention.ts';
import { readAuditRetention } from './audit/audit-retention.ts';
import { readReplayWindow } from './direct/replay-window.ts';
import { withoutTrailingSlashes } from '../common/trailing-slashes.ts';

export interface EngineConfig {
  host: string;
  port: number;
  databaseUrl: string;
  temporal: TemporalSettings;
  taskQueue: string;
  /** Base URL as callers see the facade, for the flow card's Webhook Call URL. */
  publicUrl: string;
  instance: string;
  /**
   * FLOWHOOK_ADMIN_TOKEN: a bootstrap admin credential for deployments that
   * create their service accounts with it; unset, only admin service accounts
   * reach the admin services (`flowhook start` makes the CLI's).
   */
  adminToken?: string;
  /** FLOWHOOK_ENGINE_INSECURE=true: serve cleartext on a non-loopback address (a network the operator trusts). */
  insecure: boolean;
  /** FLOWHOOK_ENGINE_TLS_CERT/_KEY (and _CLIENT_CA for mutual TLS); unset, the engine serves h2c on loopback only. */
  tls?: EngineServerTls;
  /** FLOWHOOK_CHANGE_FEED_HEARTBEAT_MS, FLOWHOOK_CACHE_MAX_AGE_MS: how soon a silently dead change feed is noticed, and the longest any cache entry is served. */
  changeFeed: { heartbeatIntervalMs: number; maxAgeMs: number };
  /** Largest RPC message the engine reads: FLOWHOOK_MAX_BODY_BYTES (the facade's body limit) plus room for the envelope. */
  maxMessageBytes: number;
  /** Added to the sync timeout before the engine stops waiting on the update itself. */
  syncGraceMs: number;
  /** Bound on reaching Temporal when starting an execution. */
  temporalTimeoutMs: number;
  /** Bound on reaching PostgreSQL. */
  databaseTimeoutMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Admission control for webhook calls, cluster-wide: each engine applies 1/N of it with N live engines (engine/limits/). */
  limits: WebhookLimitSettings;
  /** AES-256 keys for doNotLogPayload executions (FLOWHOOK_PAYLOAD_KEY or FLOWHOOK_PAYLOAD_KEY_FILE): the current one and retired ones; the workers must hold the same. */
  payloadKeys?: PayloadKeyring;
  /** Where the secret store's key-encryption keys come from (FLOWHOOK_SECRETS_KEY or FLOWHOOK_SECRETS_KEY_FILE). */
  secretsKeys: KeySource;
  /** FLOWHOOK_MAX_DEFERRAL, FLOWHOOK_MAX_HTTP_TIMEOUT: checked at publish and handed to every execution. */
  flowLimits: FlowLimits;
  /** FLOWHOOK_RERUN_PER_SECOND: re-run starts per second per engine process (engine/executions/rerun-pacer.ts). */
  rerunsPerSecond: number;
  /** FLOWHOOK_ENGINE_METRICS_PORT (default 7051; off) on FLOWHOOK_METRICS_HOST (default 127.0.0.1): GET /metrics. */
  metrics?: MetricsListenerSettings;
  /** FLOWHOOK_METRICS_TOKEN: who else than loopback clients may read /metrics. */
  metricsToken?: string;
  /** FLOWHOOK_CODEC_*: the codec server for the Temporal UI (engine/codec/); undefined = off (FLOWHOOK_CODEC_PORT unset). */
  codec?: CodecServerConfig;
  /** OpenTelemetry tracing from the standard OTEL_* variables; off unless they configure an exporter. */
  tracing: TracingConfig;
  /** FLOWHOOK_RECORD_WRITE_RETENTION, FLOWHOOK_RECORD_MAX_PER_COMPANY: how long record idempotency rows live, and the optional per-company record quota (records/record-settings.ts). */
  records: RecordSettings;
  /** FLOWHOOK_CALLBACK_RETENTION: how long callback_wait rows that can no longer change an answer are kept (callbacks/callback-wait-purge.ts). */
  callbackRetentionMs: number;
  /** FLOWHOOK_AUDIT_RETENTION: audit rows older than this are deleted (audit/audit-purge.ts); undefined keeps them all. */
  auditRetentionMs?: number;
  /** FLOWHOOK_HOOK_REPLAY_WINDOW: how long deliveries of provider routes without a signed timestamp are remembered (direct/replay-window.ts). */
  hookReplayWindowMs: number;
}

export type EngineEnv = Record<string, string | undefined>;

export function readEngineConfig(env: EngineEnv = process.env): EngineConfig {
  const databaseUrl = env.FLOWHOOK_DATABASE_URL;
  if (!databaseUrl) throw new Error('FLOWHOOK_DATABASE_URL is required for the engine (postgres://user:password@host:port/database)');
  const adminToken = env.FLOWHOOK_ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) throw new Error('FLOWHOOK_ADMIN_TOKEN must have at least 16 characters');
  refuseSharedServiceToken(env, 'the engine admits service accounts (flowhook service-account create <name> --scope invoke|records|admin); give the facade and each worker its own token');
  const facadePort = port(env, 'FLOWHOOK_FACADE_PORT', 7048);
  const host = env.FLOWHOOK_ENGINE_HOST || '127.0.0.1';
  const tls = readEngineServerTls(env);
  const insecure = readBool(env, 'FLOWHOOK_ENGINE_INSECURE');
  // Refused here, before anything starts: cleartext tokens, secrets and payloads on a network.
  checkEngineExposure({ host, tls, insecure });
  const payloadKeys = readPayloadKeyring(env);
  const codec = readCodecServerConfig(env, { tls, insecure });
  if (codec && !payloadKeys) throw new Error('FLOWHOOK_CODEC_PORT is set but FLOWHOOK_PAYLOAD_KEY is not (nor FLOWHOOK_PAYLOAD_KEY_FILE): the codec server decrypts with the payload keys of the workers');
  return Object.freeze({
    host,
    port: port(env, 'FLOWHOOK_ENGINE_PORT', 7049),
    databaseUrl,
    temporal: readTemporalSettings(env),
    taskQueue: env.FLOWHOOK_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    // The facade serves HTTPS when it has a certificate (`flowhook start` shares one environment): the flow card says so.
    publicUrl: url(env, 'FLOWHOOK_PUBLIC_URL', `${env.FLOWHOOK_FACADE_TLS_CERT ? 'https' : 'http'}://localhost:${facadePort}`),
    instance: env.FLOWHOOK_INSTANCE || 'BC',
    adminToken,
    insecure,
    tls,
    changeFeed: Object.freeze(changeFeedSettingsFromEnv(env)),
    maxMessageBytes: int(env, 'FLOWHOOK_MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1) + MESSAGE_ENVELOPE_BYTES,
    syncGraceMs: int(env, 'FLOWHOOK_SYNC_GRACE_MS', 5000, 0),
    temporalTimeoutMs: int(env, 'FLOWHOOK_TEMPORAL_TIMEOUT_MS', 10_000, 100),
    databaseTimeoutMs: int(env, 'FLOWHOOK_DATABASE_TIMEOUT_MS', 5000, 100),
    logLevel: level(env),
    limits: Object.freeze({
      perCaller: rateLimit(env, 'FLOWHOOK_RATE_LIMIT_PER_CALLER', DEFAULT_RATE_PER_SECOND),
      perActivity: rateLimit(env, 'FLOWHOOK_RATE_LIMIT_PER_ACTIVITY', DEFAULT_RATE_PER_SECOND),
      perCompany: rateLimit(env, 'FLOWHOOK_RATE_LIMIT_PER_COMPANY', 0),
      global: rateLimit(env, 'FLOWHOOK_RATE_LIMIT_GLOBAL', 0),
      perHookRoute: rateLimit(env, 'FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE', DEFAULT_HOOK_ROUTE_RATE_PER_SECOND),
      callbacks: rateLimit(env, 'FLOWHOOK_RATE_LIMIT_CALLBACKS', DEFAULT_CALLBACK_RATE_PER_SECOND),
      maxConcurrentSyncCalls: int(env, 'FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS', DEFAULT_MAX_CONCURRENT_SYNC_CALLS, 0),
    }),
    payloadKeys,
    codec,
    secretsKeys: keySourceFromEnv(env),
    flowLimits: Object.freeze({
      maxDeferralMs: duration(env, 'FLOWHOOK_MAX_DEFERRAL', DEFAULT_FLOW_LIMITS.maxDeferralMs),
      maxHttpTimeoutMs: duration(env, 'FLOWHOOK_MAX_HTTP_TIMEOUT', DEFAULT_FLOW_LIMITS.maxHttpTimeoutMs),
    }),
    rerunsPerSecond: int(env, 'FLOWHOOK_RERUN_PER_SECOND', DEFAULT_RERUNS_PER_SECOND, 1),
    tracing: readTracingConfig(env),
    records: readRecordSettings(env),
    callbackRetentionMs: readCallbackRetention(env),
    auditRetentionMs: readAuditRetention(env),
    hookReplayWindowMs: readReplayWindow(env),
    metrics: readMetricsListener(env, 'FLOWHOOK_ENGINE_METRICS_PORT', 'FLOWHOOK_METRICS_HOST', DEFAULT_METRICS_PORT),
    metricsToken: readMetricsToken(env, 'FLOWHOOK_METRICS_TOKEN'),
  });
}

// The facade's default body limit; the engine reads nothing larger than that plus what the
// rest of an InvokeRequest (secret, caller, ids) or an admin request adds.
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const MESSAGE_ENVELOPE_BYTES = 64 * 1024;

// Generous defaults: well above what one engine on a small machine serves
// (see test/bench), so they only stop floods. 0 turns a limit off.
const DEFAULT_RATE_PER_SECOND = 500;
const DEFAULT_MAX_CONCURRENT_SYNC_CALLS = 1000;
// The provider route is counted before verification, so anyone can spend it: low enough that an
// unsigned flood costs little, high enough for a provider's bursts (Stripe, Shopify and GitHub
// deliver far below this per endpoint; the burst of 200 absorbs a backlog being replayed).
const DEFAULT_HOOK_ROUTE_RATE_PER_SECOND = 100;
// Unknown callback tokens per sender: a sender that delivers real callbacks almost never misses (a
// used token is still known, and answered as a repeat), so this only has to stop guessing.
const DEFAULT_CALLBACK_RATE_PER_SECOND = 10;
/** Next to the facade's 7048, the engine's 7049 and embedded PostgreSQL's 7050; the worker's is 7052. */
const DEFAULT_METRICS_PORT = 7051;

/** `<NAME>` calls per second, `<NAME>_BURST` calls at once after a quiet spell (default: twice the rate). */
function rateLimit(env: EngineEnv, name: string, fallback: number) {
  const perSecond = int(env, name, fallback, 0);
  return Object.freeze({ perSecond, burst: int(env, `${name}_BURST`, Math.max(1, perSecond * 2), 1) });
}

function int(env: EngineEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

function duration(env: EngineEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const ms = parseDuration(raw);
  if (typeof ms === 'string' || ms < 1000) throw new Error(`${name} must be a duration of at least 1s such as 30d or 10m, got "${raw}"`);
  return ms;
}

function port(env: EngineEnv, name: string, fallback: number): number {
  const value = int(env, name, fallback, 0);
  if (value > 65535) throw new Error(`${name} must be a port number (0..65535), got "${env[name]}"`);
  return value;
}

function url(env: EngineEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new Error(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return withoutTrailingSlashes(raw);
}


function level(env: EngineEnv): EngineConfig['logLevel'] {
  const raw = (env.FLOWHOOK_LOG_LEVEL || 'info').toLowerCase();
  if (raw === 'debug' || raw === 'info' || raw === 'warn' || raw === 'error') return raw;
  throw new Error(`FLOWHOOK_LOG_LEVEL must be one of debug, info, warn, error; got "${env.FLOWHOOK_LOG_LEVEL}"`);
}
