// PostgreSQL and Temporal: where they are and how long the engine waits on them. The TEMPORAL_*
// names are the Temporal CLI's and SDKs' own.
import { setting, settingsGroup } from '../setting.ts';
import { boolean } from '../values/boolean-value.ts';
import { integer } from '../values/integer-value.ts';
import { path } from '../values/path-value.ts';
import { text } from '../values/text-value.ts';

/** Node's timers hold at most this many milliseconds; larger values would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;
const OWN_PORT = "its port is refused to flows (one of flowhook's own ports)";
/** The processes that connect to Temporal. */
const TEMPORAL_CLIENTS = ['engine', 'worker'] as const;

export const DEPENDENCY_SETTINGS = settingsGroup('PostgreSQL and Temporal', {
  FLOWHOOK_DATABASE_URL: setting({
    type: text(),
    secret: true,
    defaultText: '`start`: embedded PostgreSQL',
    processes: ['engine', 'start', 'worker'],
    meaning: '`postgres://user:password@host:port/db`; **required** by `flowhook engine`',
    roles: { start: 'your PostgreSQL instead of the embedded one', worker: OWN_PORT },
  }),
  FLOWHOOK_CHANGE_FEED_HEARTBEAT_MS: setting({
    type: integer({ min: 1, max: MAX_TIMER_MS, unit: 'ms' }),
    default: 2000,
    processes: ['engine'],
    meaning: 'how often the cache-invalidation feed (PostgreSQL LISTEN/NOTIFY) proves it is alive',
    more: 'See [caches](../explanation/guarantees.md#caches-never-serve-stale-security-data-for-long).',
  }),
  FLOWHOOK_CACHE_MAX_AGE_MS: setting({
    type: integer({ min: 1, max: MAX_TIMER_MS, unit: 'ms' }),
    default: 30_000,
    processes: ['engine'],
    meaning: 'the longest any cached flow, caller or account is served',
  }),
  FLOWHOOK_DATABASE_TIMEOUT_MS: setting({
    type: integer({ min: 100, unit: 'ms' }),
    default: 5000,
    processes: ['engine'],
    meaning: 'bound on getting a PostgreSQL connection',
  }),
  TEMPORAL_ADDRESS: setting({
    type: text(),
    default: '127.0.0.1:7233',
    defaultText: '`127.0.0.1:7233`; `start`: its dev server',
    processes: ['engine', 'worker', 'start'],
    computedBy: ['start'],
    meaning: 'Temporal frontend `host:port`: your Temporal cluster',
    roles: {
      start: 'your Temporal instead of the dev server',
      worker: 'Temporal frontend host:port; its port is refused to flows',
    },
  }),
  TEMPORAL_NAMESPACE: setting({
    type: text(),
    default: 'default',
    processes: TEMPORAL_CLIENTS,
    meaning: 'Temporal namespace',
  }),
  TEMPORAL_TLS: setting({
    type: boolean(),
    default: false,
    defaultText: '`false` (`true` with an API key or a TLS file)',
    processes: TEMPORAL_CLIENTS,
    meaning: 'TLS to Temporal',
  }),
  TEMPORAL_TLS_CERT: setting({
    type: path(),
    processes: TEMPORAL_CLIENTS,
    meaning: 'client certificate for mutual TLS to Temporal',
  }),
  TEMPORAL_TLS_KEY: setting({ type: path(), processes: TEMPORAL_CLIENTS, meaning: 'its private key' }),
  TEMPORAL_TLS_CA: setting({
    type: path(),
    processes: TEMPORAL_CLIENTS,
    meaning: "CA of the Temporal server's certificate",
  }),
  TEMPORAL_TLS_SERVER_NAME: setting({
    type: text(),
    processes: TEMPORAL_CLIENTS,
    meaning: "server name to verify in Temporal's certificate",
  }),
  TEMPORAL_API_KEY: setting({
    type: text(),
    secret: true,
    processes: TEMPORAL_CLIENTS,
    meaning: 'API key (Temporal Cloud); turns TLS on',
  }),
  FLOWHOOK_TASK_QUEUE: setting({
    type: text(),
    default: 'flowhook-flows',
    processes: TEMPORAL_CLIENTS,
    meaning: 'Temporal task queue of engine and workers',
  }),
  FLOWHOOK_TEMPORAL_TIMEOUT_MS: setting({
    type: integer({ min: 100, unit: 'ms' }),
    default: 10_000,
    processes: ['engine'],
    meaning:
      'bound on starting an execution; in sync mode, how long a start may go unacknowledged before the engine checks whether Temporal is reachable',
  }),
  FLOWHOOK_SYNC_GRACE_MS: setting({
    type: integer({ min: 0, unit: 'ms' }),
    default: 5000,
    processes: ['engine'],
    meaning: "how much longer than the sync timeout the engine waits for the workflow's answer",
  }),
});
