// `flowhook <command> --help` ends with the environment variables that command
// reads, so nobody has to search the README for them. The lists are kept
// honest by a test that scans each component's configuration reader for the
// variables it reads (test/unit/cli-environment-help.test.ts).
import type { Command } from 'commander';
import { TRACING_VARIABLES } from '../../common/tracing/tracing-config.ts';

export interface EnvironmentVariable {
  name: string;
  meaning: string;
}

const v = (name: string, meaning: string): EnvironmentVariable => ({ name, meaning });

const SHARED_LOGGING = [v('FLOWHOOK_LOG_LEVEL', 'debug | info (default) | warn | error')];

const METRICS_TOKEN = v('FLOWHOOK_METRICS_TOKEN', 'bearer token (16+ chars) that may read /metrics from anywhere; unset: loopback only');
const METRICS_HOST = v('FLOWHOOK_METRICS_HOST', 'metrics port address (default 127.0.0.1)');

const TEMPORAL_CLIENT = [
  v('TEMPORAL_ADDRESS', 'Temporal frontend host:port (default 127.0.0.1:7233)'),
  v('TEMPORAL_NAMESPACE', 'Temporal namespace (default "default")'),
  v('TEMPORAL_TLS', 'true: TLS to Temporal'),
  v('TEMPORAL_TLS_CERT', 'client certificate (mTLS)'),
  v('TEMPORAL_TLS_KEY', 'client key (mTLS)'),
  v('TEMPORAL_TLS_CA', 'CA of the Temporal server certificate'),
  v('TEMPORAL_TLS_SERVER_NAME', 'server name to verify'),
  v('TEMPORAL_API_KEY', 'API key (Temporal Cloud)'),
];

// Standard OpenTelemetry names (not FLOWHOOK_*): typed by the list the reader uses, so none is left out.
const TRACING_MEANINGS: Record<(typeof TRACING_VARIABLES)[number], string> = {
  OTEL_SDK_DISABLED: 'true: no tracing, whatever else is set',
  OTEL_TRACES_EXPORTER: 'otlp | console | none (comma list): tracing on unless none',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'collector base URL (/v1/traces is added); set: tracing on',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'full traces URL, instead of the above',
  OTEL_EXPORTER_OTLP_HEADERS: 'key=value,… sent to the collector (e.g. an API key)',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'the same, for traces only',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json only (default)',
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json only (default)',
  OTEL_SERVICE_NAME: 'service.name of the spans (default flowhook)',
  OTEL_RESOURCE_ATTRIBUTES: 'key=value,… on every span',
  OTEL_TRACES_SAMPLER: 'default parentbased_always_on; always_on ignores what the caller asks',
  OTEL_TRACES_SAMPLER_ARG: 'ratio for the traceidratio samplers (0..1)',
};
const TRACING = TRACING_VARIABLES.map((name) => v(name, TRACING_MEANINGS[name]));

const PAYLOAD_KEYS: readonly EnvironmentVariable[] = [
  v('FLOWHOOK_PAYLOAD_KEY', 'base64 AES-256 keys for doNotLogPayload executions, comma-separated, current first'),
  v('FLOWHOOK_PAYLOAD_KEY_FILE', 'or a 0600 file of them, one a line, current first (flowhook payload-key rotate)'),
];

/** `flowhook payload-key rotate` edits a local file and reaches no engine. */
const PAYLOAD_KEY_ROTATE_ENVIRONMENT: readonly EnvironmentVariable[] = [
  v('FLOWHOOK_PAYLOAD_KEY_FILE', 'the key file to rotate (default: <data dir>/payload-key)'),
  v('FLOWHOOK_DATA_DIR', "where `start` keeps its key file (default: ./.flowhook, else the checkout's)"),
];

const ENGINE_CLIENT_TLS: readonly EnvironmentVariable[] = [
  v('FLOWHOOK_ENGINE_CA', 'PEM CA trusted for an https engine (only this one)'),
  v('FLOWHOOK_ENGINE_CLIENT_CERT', 'PEM client certificate (mutual TLS)'),
  v('FLOWHOOK_ENGINE_CLIENT_KEY', 'PEM client key (mutual TLS)'),
];

export const ENGINE_ENVIRONMENT: readonly EnvironmentVariable[] = [
  v('FLOWHOOK_DATABASE_URL', 'PostgreSQL URL (required)'),
  v('FLOWHOOK_ADMIN_TOKEN', 'bootstrap admin token (optional; service accounts otherwise)'),
  v('FLOWHOOK_ENGINE_TLS_CERT', 'PEM certificate: serve TLS'),
  v('FLOWHOOK_ENGINE_TLS_KEY', 'PEM private key for TLS'),
  v('FLOWHOOK_ENGINE_TLS_CLIENT_CA', 'PEM CA: require client certificates (mutual TLS)'),
  v('FLOWHOOK_ENGINE_INSECURE', 'true: allow cleartext on a non-loopback address'),
  v('FLOWHOOK_MAX_BODY_BYTES', 'largest message read is this + 64 KiB (default 1048576)'),
  v('FLOWHOOK_CHANGE_FEED_HEARTBEAT_MS', 'cache-invalidation heartbeat (default 2000)'),
  v('FLOWHOOK_CACHE_MAX_AGE_MS', 'longest a cached flow/caller is served (default 30000)'),
  v('FLOWHOOK_ENGINE_HOST', 'listen address (default 127.0.0.1)'),
  v('FLOWHOOK_ENGINE_PORT', 'listen port (default 7049)'),
  v('FLOWHOOK_PUBLIC_URL', 'base URL callers see (flow cards)'),
  v('FLOWHOOK_FACADE_PORT', 'facade port, for the default public URL'),
  v('FLOWHOOK_FACADE_TLS_CERT', 'set: the default public URL is https'),
  v('FLOWHOOK_INSTANCE', 'the {instance} path segment (default BC)'),
  ...PAYLOAD_KEYS,
  v('FLOWHOOK_SECRETS_KEY', 'secret store keys, base64, comma-separated, newest first'),
  v('FLOWHOOK_SECRETS_KEY_FILE', 'file of secret store keys, one a line, newest first'),
  v('FLOWHOOK_TASK_QUEUE', 'Temporal task queue (default flowhook-flows)'),
  v('FLOWHOOK_SYNC_GRACE_MS', 'extra wait past the sync timeout (default 5000)'),
  v('FLOWHOOK_TEMPORAL_TIMEOUT_MS', 'bound on starting an execution (default 10000)'),
  v('FLOWHOOK_DATABASE_TIMEOUT_MS', 'bound on getting a PostgreSQL connection (default 5000)'),
  v('FLOWHOOK_RATE_LIMIT_PER_CALLER', 'calls per second per caller, all engines together (default 500; 0 = off); _BURST for the burst'),
  v('FLOWHOOK_RATE_LIMIT_PER_ACTIVITY', 'calls per second per (company, activity), all engines together (default 500; 0 = off); _BURST for the burst'),
  v('FLOWHOOK_RATE_LIMIT_PER_COMPANY', 'calls per second per company, all engines together (default 0 = off); _BURST (default twice the rate)'),
  v('FLOWHOOK_RATE_LIMIT_GLOBAL', 'calls per second to all flows, all engines together (default 0 = off); _BURST (default twice the rate)'),
  v('FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE', 'provider-route requests per second per activity, before verification, all engines together (default 100; 0 = off); _BURST (default 200)'),
  v('FLOWHOOK_RATE_LIMIT_CALLBACKS', 'callback URL deliveries with an unknown token per second per sender, all engines together (default 10; 0 = off); _BURST (default 20)'),
  v('FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS', 'sync calls waiting at once, all engines together (default 1000; 0 = no cap)'),
  v('FLOWHOOK_RERUN_PER_SECOND', 're-run starts per second per engine (default 5)'),
  v('FLOWHOOK_MAX_HTTP_TIMEOUT', 'longest httpRequest timeout a flow may set (default 5m)'),
  v('FLOWHOOK_MAX_DEFERRAL', 'longest sleep/waitUntil (default 90d)'),
  v('FLOWHOOK_RECORD_WRITE_RETENTION', 'how long record idempotency rows are kept (default 30d, at least 1h)'),
  v('FLOWHOOK_CALLBACK_RETENTION', 'how long callback_wait rows that can no longer change an answer are kept (default 30d, at least 1h)'),
  v('FLOWHOOK_AUDIT_RETENTION', 'how long audit_event rows are kept (default: for good; off = for good; else at least 1d)'),
  v('FLOWHOOK_HOOK_REPLAY_WINDOW', 'how long provider deliveries without a signed timestamp (github, shopify, hmac) are remembered against replays (default 30d, at least 3d)'),
  v('FLOWHOOK_RECORD_MAX_PER_COMPANY', 'most records one company may hold (default 0 = no quota)'),
  v('FLOWHOOK_ENGINE_METRICS_PORT', 'GET /metrics port (default 7051; 0 = free port; off)'),
  v('FLOWHOOK_CODEC_PORT', 'codec server for the Temporal UI (unset or off: none; 0 = free port)'),
  v('FLOWHOOK_CODEC_HOST', 'codec server address (default 127.0.0.1; else needs the engine TLS or INSECURE)'),
  v('FLOWHOOK_CODEC_ALLOWED_ORIGINS', 'Temporal UI origins that may call it, e.g. http://127.0.0.1:8233'),
  v('FLOWHOOK_CODEC_SESSION_TTL', 'how long a sign-in on its /login page lasts (default 1h, at most 24h)'),
  v('FLOWHOOK_CODEC_OAUTH_ISSUER', 'issuer of operators\' access tokens (the UI passes them)'),
  v('FLOWHOOK_CODEC_OAUTH_AUDIENCE', 'their accepted aud values'),
  v('FLOWHOOK_CODEC_OAUTH_GROUP', 'the operator group a token must name'),
  v('FLOWHOOK_CODEC_OAUTH_GROUP_CLAIM', 'the claim listing groups (default groups)'),
  v('FLOWHOOK_CODEC_OAUTH_JWKS_URI', 'the issuer\'s keys (default: from its discovery document)'),
  METRICS_HOST,
  METRICS_TOKEN,
  ...SHARED_LOGGING,
  ...TEMPORAL_CLIENT,
  ...TRACING,
];

export const FACADE_ENVIRONMENT: readonly EnvironmentVariable[] = [
  v('FLOWHOOK_FACADE_HOST', 'listen address (default 0.0.0.0 for `facade`, 127.0.0.1 for `start`)'),
  v('FLOWHOOK_FACADE_PORT', 'listen port (default 7048)'),
  v('FLOWHOOK_ENGINE_URL', 'where the engine is (default http://127.0.0.1:7049)'),
  v('FLOWHOOK_ENGINE_TOKEN', 'its service account token (invoke, --forwards-callers)'),
  v('FLOWHOOK_ENGINE_TOKEN_FILE', 'or a 0600 file holding it'),
  ...ENGINE_CLIENT_TLS,
  v('FLOWHOOK_PUBLIC_URL', 'base URL callers see (@odata.context)'),
  v('FLOWHOOK_INSTANCE', 'the {instance} path segment (default BC)'),
  v('FLOWHOOK_MAX_BODY_BYTES', 'larger bodies get 413 (default 1048576)'),
  v('FLOWHOOK_FACADE_TLS_CERT', 'PEM certificate chain: serve HTTPS'),
  v('FLOWHOOK_FACADE_TLS_KEY', 'PEM private key for HTTPS'),
  v('FLOWHOOK_OAUTH_ISSUERS', 'trusted token issuers (unset: no Bearer callers)'),
  v('FLOWHOOK_BASIC_AUTH', 'on (default) or off: off accepts Bearer callers only (needs FLOWHOOK_OAUTH_ISSUERS)'),
  v('FLOWHOOK_OAUTH_AUDIENCE', 'accepted aud values'),
  v('FLOWHOOK_OAUTH_CLOCK_TOLERANCE_SECONDS', 'exp/nbf skew (default 60)'),
  v('FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS', 'oldest token accepted, by its iat (default 86400; 0: no limit)'),
  v('FLOWHOOK_TRUSTED_PROXIES', 'proxies (IPs, CIDRs) whose X-Forwarded-For names a callback\'s sender (default: none)'),
  v('FLOWHOOK_FACADE_METRICS_PORT', 'GET /metrics port (default 7053; 0 = free port; off); the public port answers /metrics only with the token'),
  METRICS_HOST,
  METRICS_TOKEN,
  ...SHARED_LOGGING,
  ...TRACING,
];

export const WORKER_ENVIRONMENT: readonly EnvironmentVariable[] = [
  v('FLOWHOOK_ENGINE_URL', 'where the engine is (record step, connections)'),
  v('FLOWHOOK_ENGINE_TOKEN', 'its service account token (records scope)'),
  v('FLOWHOOK_ENGINE_TOKEN_FILE', 'or a 0600 file holding it'),
  ...ENGINE_CLIENT_TLS,
  ...PAYLOAD_KEYS,
  v('FLOWHOOK_TASK_QUEUE', 'Temporal task queue (default flowhook-flows)'),
  v('FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY', 'workflow task slots (default 100)'),
  v('FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY', 'activity slots (default 100)'),
  v('FLOWHOOK_WORKER_CACHED_WORKFLOWS', 'executions kept in memory between tasks (default 1000)'),
  v('FLOWHOOK_NODE_HEAP', 'off: run engine, worker, facade and start without flowhook\'s V8 heap limits'),
  v('FLOWHOOK_COMPILED_JS', 'off: let Node strip the TypeScript types of flowhook\'s modules as they load instead of using the cache in node_modules/.cache/flowhook-js'),
  v('FLOWHOOK_WORKFLOW_STACK_TRACES', 'true: keep stack traces in workflow code'),
  v('FLOWHOOK_EGRESS_ALLOW', 'internal hosts, host:port, IPs, CIDRs flows may reach'),
  v('FLOWHOOK_HTTP_MAX_RESPONSE_BYTES', 'cap on one httpRequest answer (default 4194304)'),
  v('FLOWHOOK_HTTP_MAX_JSON_DEPTH', 'nesting cap of JSON/XML answers (default 100)'),
  v('FLOWHOOK_DATABASE_URL', 'its port is refused to flows (own port)'),
  v('FLOWHOOK_ENGINE_PORT', 'refused to flows (own port)'),
  v('FLOWHOOK_FACADE_PORT', 'refused to flows (own port)'),
  v('FLOWHOOK_EMBEDDED_POSTGRES_PORT', 'refused to flows (own port)'),
  v('FLOWHOOK_TEMPORAL_UI_PORT', 'refused to flows (own port)'),
  v('FLOWHOOK_CODEC_PORT', 'refused to flows (own port; default the UI port + 1)'),
  v('FLOWHOOK_ENGINE_METRICS_PORT', 'refused to flows (own port; default 7051)'),
  v('FLOWHOOK_FACADE_METRICS_PORT', 'refused to flows (own port; default 7053)'),
  v('FLOWHOOK_WORKER_METRICS_PORT', '/metrics, /healthz, /readyz port (default 7052; 0 = free port; off)'),
  METRICS_HOST,
  METRICS_TOKEN,
  ...SHARED_LOGGING,
  ...TEMPORAL_CLIENT,
  ...TRACING,
];

/** What `start` reads itself; it also passes everything on to engine, worker and facade. */
export const START_ENVIRONMENT: readonly EnvironmentVariable[] = [
  v('FLOWHOOK_DATA_DIR', 'embedded data, tokens, keys (default: .flowhook here)'),
  v('FLOWHOOK_DATABASE_URL', 'your PostgreSQL instead of the embedded one'),
  v('FLOWHOOK_EMBEDDED_POSTGRES_PORT', 'embedded PostgreSQL port (default 7050)'),
  v('TEMPORAL_ADDRESS', 'your Temporal instead of the dev server'),
  v('FLOWHOOK_TEMPORAL_PORT', 'dev server port (default 7233)'),
  v('FLOWHOOK_TEMPORAL_UI_PORT', 'dev server Web UI port (default 8233)'),
  v('FLOWHOOK_FACADE_HOST', 'default 127.0.0.1; 0.0.0.0 opens the endpoint to the network'),
  v('FLOWHOOK_LOG_LEVEL', 'component log level (default info)'),
  v('FLOWHOOK_ADMIN_TOKEN', 'optional bootstrap admin token (the CLI uses <data dir>/admin-token)'),
  v('FLOWHOOK_PAYLOAD_KEY', 'default: the key file below'),
  v('FLOWHOOK_PAYLOAD_KEY_FILE', 'default: <data dir>/payload-key, generated (a key ring)'),
  v('FLOWHOOK_SECRETS_KEY', 'default: the key file below'),
  v('FLOWHOOK_SECRETS_KEY_FILE', 'default: <data dir>/secrets-key, generated'),
  v('FLOWHOOK_ENGINE_URL', 'default: the engine this process starts'),
  v('FLOWHOOK_CODEC_PORT', 'codec server next to the dev server UI (default: UI port + 1, 8234; off: none)'),
  v('FLOWHOOK_CODEC_HOST', 'its address (default 127.0.0.1)'),
  v('FLOWHOOK_CODEC_ALLOWED_ORIGINS', 'default: the dev server UI (127.0.0.1 and localhost)'),
  v('FLOWHOOK_ENGINE_TLS_CERT', 'set: the codec endpoint is https'),
];

export const ADMIN_ENVIRONMENT: readonly EnvironmentVariable[] = [
  v('FLOWHOOK_ENGINE_URL', 'where the engine is (default http://127.0.0.1:7049)'),
  v('FLOWHOOK_ADMIN_TOKEN', 'an admin service account token (default: read from <data dir>/admin-token)'),
  ...ENGINE_CLIENT_TLS,
  v('FLOWHOOK_DATA_DIR', "where `start` keeps the admin token (default: ./.flowhook, else the checkout's)"),
];

const PROCESS_COMMANDS: Readonly<Record<string, readonly EnvironmentVariable[]>> = {
  start: START_ENVIRONMENT,
  engine: ENGINE_ENVIRONMENT,
  facade: FACADE_ENVIRONMENT,
  worker: WORKER_ENVIRONMENT,
  'payload-key rotate': PAYLOAD_KEY_ROTATE_ENVIRONMENT,
};

/** Commands that read no environment at all (e.g. `flow schema` prints a file). */
const READS_NOTHING = new Set(['flow schema', 'help']);

/** Adds an "Environment:" section to the help of every command (admin commands: the admin variables). */
export function addEnvironmentHelp(program: Command): void {
  for (const command of program.commands) visit(command, []);

  function visit(command: Command, parents: string[]): void {
    const path = [...parents, command.name()];
    const key = path.join(' ');
    if (command.commands.length > 0) {
      for (const child of command.commands) visit(child, path);
      return;
    }
    if (READS_NOTHING.has(key)) return;
    const variables = PROCESS_COMMANDS[key] ?? ADMIN_ENVIRONMENT;
    command.addHelpText('after', () => environmentSection(variables));
  }
}

export function environmentSection(variables: readonly EnvironmentVariable[]): string {
  const width = Math.max(...variables.map((variable) => variable.name.length));
  return ['', 'Environment:', ...variables.map((variable) => `  ${variable.name.padEnd(width)}  ${variable.meaning}`)].join('\n');
}
