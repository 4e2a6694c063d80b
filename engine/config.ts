// The engine's configuration, read once from the environment into a frozen, typed object,
// through the configuration table (common/configuration/): a wrong value stops the process with
// a message naming the variable.
import { readSettings, type Env } from '../common/configuration/read-settings.ts';
import { defaultPublicUrl } from '../common/default-public-url.ts';
import { readPayloadKeyring, type PayloadKeyring } from '../workflows/codec/payload-keyring.ts';
import type { WebhookLimitSettings } from './domain/limits/webhook-limits.ts';
import type { FlowLimits } from '../flow/index.ts';
import { readTemporalSettings, type TemporalSettings } from '../common/temporal/temporal-settings.ts';
import { keySourceFromEnv, type KeySource } from './infrastructure/secret-store/secret-keyring.ts';
import { checkEngineExposure, readEngineServerTls, type EngineServerTls } from './edges/rpc/engine-tls.ts';
import { metricsListener, type MetricsListenerSettings } from '../common/metrics/metrics-config.ts';
import { readCodecServerConfig, type CodecServerConfig } from './edges/codec/codec-config.ts';
import { readConsoleConfig, type ConsoleConfig } from './edges/console/console-config.ts';
import { readTracingConfig, type TracingConfig } from '../common/tracing/tracing-config.ts';
import { readRecordSettings, type RecordSettings } from './domain/records/record-settings.ts';
import { readRetentionSettings, type RetentionSettings } from './domain/retention/retention-settings.ts';
import { readAlertSettings } from './domain/alerts/alert-settings.ts';
import type { AlertSettings } from './domain/alerts/alert-deps.ts';

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
  /** Admission control for webhook calls, cluster-wide: each engine applies 1/N of it with N live engines (engine/domain/limits/). */
  limits: WebhookLimitSettings;
  /** AES-256 keys for doNotLogPayload executions (FLOWHOOK_PAYLOAD_KEY or FLOWHOOK_PAYLOAD_KEY_FILE): the current one and retired ones; the workers must hold the same. */
  payloadKeys?: PayloadKeyring;
  /** Where the secret store's key-encryption keys come from (FLOWHOOK_SECRETS_KEY or FLOWHOOK_SECRETS_KEY_FILE). */
  secretsKeys: KeySource;
  /** FLOWHOOK_MAX_DEFERRAL, FLOWHOOK_MAX_HTTP_TIMEOUT: checked at publish and handed to every execution. */
  flowLimits: FlowLimits;
  /** FLOWHOOK_TEMPORAL_UI_URL: the Temporal Web UI, which execution pages link to. */
  temporalUiUrl?: string;
  /** FLOWHOOK_RERUN_PER_SECOND: re-run starts per second per engine process (engine/domain/reruns/rerun-pacer.ts). */
  rerunsPerSecond: number;
  /** FLOWHOOK_FLOW_CONTROL_MAX_WAITING: executions waiting at one flow-control gate at most (engine/domain/flow-control/gate-backlogs.ts). */
  flowControlMaxWaiting: number;
  /** FLOWHOOK_ENGINE_METRICS_PORT (default 7051; off) on FLOWHOOK_METRICS_HOST (default 127.0.0.1): GET /metrics. */
  metrics?: MetricsListenerSettings;
  /** FLOWHOOK_METRICS_TOKEN: who else than loopback clients may read /metrics. */
  metricsToken?: string;
  /** FLOWHOOK_CODEC_*: the codec server for the Temporal UI (engine/edges/codec/); undefined = off (FLOWHOOK_CODEC_PORT unset). */
  codec?: CodecServerConfig;
  /** FLOWHOOK_CONSOLE_*: the web console (engine/edges/console/); undefined = off (FLOWHOOK_CONSOLE_PORT unset). */
  console?: ConsoleConfig;
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
  /** FLOWHOOK_DELIVERY_REFUSED_PER_SENDER_PER_MINUTE and FLOWHOOK_DELIVERY_REFUSED_PER_MINUTE (domain/deliveries/flood-bound.ts). */
  deliveryBound: { perSender: number; perMinute: number };
  /** Every FLOWHOOK_*_RETENTION and FLOWHOOK_RETENTION_INTERVAL, as the retention purge applies them (engine/domain/retention/). */
  retention: RetentionSettings;
  /** FLOWHOOK_ALERT_*, and FLOWHOOK_EGRESS_ALLOW for the alert messages the engine sends (domain/alerts/alert-settings.ts). */
  alerts: Pick<AlertSettings, 'evaluationIntervalMs' | 'sendTimeoutMs' | 'egress'>;
}

export function readEngineConfig(env: Env = process.env): EngineConfig {
  const settings = readSettings(env, 'engine');
  const databaseUrl = settings.FLOWHOOK_DATABASE_URL;
  if (!databaseUrl)
    throw new Error('FLOWHOOK_DATABASE_URL is required for the engine (postgres://user:password@host:port/database)');
  const host = settings.FLOWHOOK_ENGINE_HOST;
  const tls = readEngineServerTls(settings);
  const insecure = settings.FLOWHOOK_ENGINE_INSECURE;
  // Refused here, before anything starts: cleartext tokens, secrets and payloads on a network.
  checkEngineExposure({ host, tls, insecure });
  const payloadKeys = readPayloadKeyring(settings);
  const codec = readCodecServerConfig(settings, { tls, insecure });
  if (codec && !payloadKeys)
    throw new Error(
      'FLOWHOOK_CODEC_PORT is set but FLOWHOOK_PAYLOAD_KEY is not (nor FLOWHOOK_PAYLOAD_KEY_FILE): the codec server decrypts with the payload keys of the workers',
    );
  const auditRetention = settings.FLOWHOOK_AUDIT_RETENTION;
  return Object.freeze({
    host,
    port: settings.FLOWHOOK_ENGINE_PORT,
    databaseUrl,
    temporal: readTemporalSettings(settings),
    taskQueue: settings.FLOWHOOK_TASK_QUEUE,
    // The facade serves HTTPS when it has a certificate (`flowhook start` shares one environment): the flow card says so.
    publicUrl:
      settings.FLOWHOOK_PUBLIC_URL ??
      defaultPublicUrl(settings.FLOWHOOK_FACADE_PORT, settings.FLOWHOOK_FACADE_TLS_CERT !== undefined),
    instance: settings.FLOWHOOK_INSTANCE,
    adminToken: settings.FLOWHOOK_ADMIN_TOKEN,
    insecure,
    tls,
    changeFeed: Object.freeze({
      heartbeatIntervalMs: settings.FLOWHOOK_CHANGE_FEED_HEARTBEAT_MS,
      maxAgeMs: settings.FLOWHOOK_CACHE_MAX_AGE_MS,
    }),
    maxMessageBytes: settings.FLOWHOOK_MAX_BODY_BYTES + MESSAGE_ENVELOPE_BYTES,
    syncGraceMs: settings.FLOWHOOK_SYNC_GRACE_MS,
    temporalTimeoutMs: settings.FLOWHOOK_TEMPORAL_TIMEOUT_MS,
    databaseTimeoutMs: settings.FLOWHOOK_DATABASE_TIMEOUT_MS,
    logLevel: settings.FLOWHOOK_LOG_LEVEL,
    limits: Object.freeze({
      perCaller: rateLimit(settings.FLOWHOOK_RATE_LIMIT_PER_CALLER, settings.FLOWHOOK_RATE_LIMIT_PER_CALLER_BURST),
      perActivity: rateLimit(
        settings.FLOWHOOK_RATE_LIMIT_PER_ACTIVITY,
        settings.FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST,
      ),
      perCompany: rateLimit(settings.FLOWHOOK_RATE_LIMIT_PER_COMPANY, settings.FLOWHOOK_RATE_LIMIT_PER_COMPANY_BURST),
      global: rateLimit(settings.FLOWHOOK_RATE_LIMIT_GLOBAL, settings.FLOWHOOK_RATE_LIMIT_GLOBAL_BURST),
      perHookRoute: rateLimit(
        settings.FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE,
        settings.FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE_BURST,
      ),
      callbacks: rateLimit(settings.FLOWHOOK_RATE_LIMIT_CALLBACKS, settings.FLOWHOOK_RATE_LIMIT_CALLBACKS_BURST),
      maxConcurrentSyncCalls: settings.FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS,
    }),
    payloadKeys,
    codec,
    console: readConsoleConfig(settings, { tls }),
    secretsKeys: keySourceFromEnv(settings),
    flowLimits: Object.freeze({
      maxDeferralMs: settings.FLOWHOOK_MAX_DEFERRAL,
      maxHttpTimeoutMs: settings.FLOWHOOK_MAX_HTTP_TIMEOUT,
    }),
    rerunsPerSecond: settings.FLOWHOOK_RERUN_PER_SECOND,
    flowControlMaxWaiting: settings.FLOWHOOK_FLOW_CONTROL_MAX_WAITING,
    temporalUiUrl: settings.FLOWHOOK_TEMPORAL_UI_URL,
    tracing: readTracingConfig(settings),
    records: readRecordSettings(settings),
    callbackRetentionMs: settings.FLOWHOOK_CALLBACK_RETENTION,
    auditRetentionMs: auditRetention === 'off' ? undefined : auditRetention,
    hookReplayWindowMs: settings.FLOWHOOK_HOOK_REPLAY_WINDOW,
    deliveryBound: {
      perSender: settings.FLOWHOOK_DELIVERY_REFUSED_PER_SENDER_PER_MINUTE,
      perMinute: settings.FLOWHOOK_DELIVERY_REFUSED_PER_MINUTE,
    },
    retention: readRetentionSettings(settings),
    alerts: readAlertSettings(settings),
    metrics: metricsListener(settings.FLOWHOOK_ENGINE_METRICS_PORT, settings.FLOWHOOK_METRICS_HOST),
    metricsToken: settings.FLOWHOOK_METRICS_TOKEN,
  });
}

// The engine reads no RPC message larger than the facade's body limit plus what the rest of an
// InvokeRequest (secret, caller, ids) or an admin request adds.
const MESSAGE_ENVELOPE_BYTES = 64 * 1024;

/** Calls per second, and calls at once after a quiet spell (default: twice the rate). */
function rateLimit(perSecond: number, burst: number | undefined) {
  return Object.freeze({ perSecond, burst: burst ?? Math.max(1, perSecond * 2) });
}
