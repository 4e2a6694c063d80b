// Cross-process cache invalidation through PostgreSQL LISTEN/NOTIFY. Every
// write that changes what the webhook hot path reads (publish, unpublish,
// secret rotation, service users) sends a notification after it commits; every
// engine listening clears its caches. While the listening connection is down
// the caches are bypassed, so a missed notification can never serve stale data.
//
// A listening connection can also die silently: a network partition without
// FIN or RST, a proxy that stops forwarding, a frozen backend. Nothing errors,
// so the feed proves it is alive instead: every interval it notifies its own
// channel with a heartbeat token only it knows and must hear it back within a
// deadline. PostgreSQL delivers notifications in commit order, so hearing the
// heartbeat also proves every change committed before it has been heard. A
// missed heartbeat counts as a lost connection: caches drop everything at once
// and are bypassed until a fresh connection listens again.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { EntityManager } from '@mikro-orm/postgresql';
import { defaultOf } from '../../../common/configuration/configuration-table.ts';

export const CHANGE_CHANNEL = 'flowhook_changes';
// 'hookSecrets': provider routes' signing secrets (engine/domain/direct/hook-secret-lookup.ts).
export const CHANGE_TOPICS = ['flows', 'users', 'hookSecrets'] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

export const DEFAULT_HEARTBEAT_INTERVAL_MS = defaultOf('FLOWHOOK_CHANGE_FEED_HEARTBEAT_MS');
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 3000;
/** Every feed's heartbeat payload starts with this; listeners never read it as a change. */
const HEARTBEAT_PREFIX = 'flowhook-heartbeat:';
const CONNECT_TIMEOUT_MS = 5000;
const RECONNECT_DELAY_MS = 1000;
/** How long close() lets a healthy connection say goodbye before cutting it. */
const CLOSE_GRACE_MS = 1000;
/** Shown in pg_stat_activity, so operators (and tests) can tell the listening connection apart. */
export const CHANGE_FEED_APPLICATION_NAME = 'flowhook-change-feed';

export interface ChangeFeedOptions {
  /** Pause between a heartbeat heard back and the next one sent. */
  heartbeatIntervalMs?: number;
  /** How long a heartbeat (or connecting and listening) may take before the connection counts as dead. */
  heartbeatTimeoutMs?: number;
}

export interface ChangeFeed {
  /** True while notifications are being received; caches serve only then. */
  readonly live: boolean;
  onChange(listener: (topic: ChangeTopic | 'all') => void): void;
  /**
   * After a committed write: this engine's caches drop the topic at once, and a
   * notification tells every other engine (they drop it when it arrives, within milliseconds).
   */
  announce(em: EntityManager, topic: ChangeTopic): Promise<void>;
  close(): Promise<void>;
}

export type ChangeAnnouncer = Pick<ChangeFeed, 'announce'>;

export function startChangeFeed(databaseUrl: string, logger: Logger, options: ChangeFeedOptions = {}): ChangeFeed {
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
  const heartbeatToken = `${HEARTBEAT_PREFIX}${randomUUID()}`;
  const listeners: ((topic: ChangeTopic | 'all') => void)[] = [];
  let client: pg.Client | undefined;
  /** The next heartbeat, or the deadline of the one (or of the connecting) under way: one at a time. */
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let live = false;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  const emit = (topic: ChangeTopic | 'all') => listeners.forEach((listener) => listener(topic));
  const schedule = (action: () => void, ms: number) => {
    clearTimeout(heartbeatTimer);
    heartbeatTimer = setTimeout(action, ms).unref();
  };

  const connect = () => {
    const next = new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      application_name: CHANGE_FEED_APPLICATION_NAME,
    });
    let awaitedHeartbeat: string | undefined;
    let heartbeats = 0;

    const lost = (reason: string) => {
      if (client !== next) return;
      client = undefined;
      clearTimeout(heartbeatTimer);
      live = false;
      emit('all');
      logger.warn({ reason }, 'change feed unavailable; caches bypassed until it reconnects');
      abandon(next);
      if (!closed) retryTimer = setTimeout(connect, RECONNECT_DELAY_MS).unref();
    };
    const deadline = (what: string, ms: number) => schedule(() => lost(`${what} took longer than ${ms} ms`), ms);
    const sendHeartbeat = () => {
      awaitedHeartbeat = `${heartbeatToken}:${++heartbeats}`;
      deadline('heartbeat', heartbeatTimeoutMs);
      next
        .query('select pg_notify($1, $2)', [CHANGE_CHANNEL, awaitedHeartbeat])
        .catch((error: unknown) => lost(messageOf(error)));
    };

    next.on('error', (error) => lost(error.message));
    next.on('end', () => lost('connection ended'));
    next.on('notification', ({ payload }) => {
      if (client !== next) return;
      if (payload?.startsWith(HEARTBEAT_PREFIX)) {
        // Other engines' heartbeats share the channel; only our own awaited one proves liveness.
        if (payload === awaitedHeartbeat) {
          awaitedHeartbeat = undefined;
          schedule(sendHeartbeat, heartbeatIntervalMs);
        }
        return;
      }
      emit(topicOf(payload));
    });
    client = next;
    deadline('connecting and listening', CONNECT_TIMEOUT_MS + heartbeatTimeoutMs);
    next
      .connect()
      .then(() => next.query(`listen ${CHANGE_CHANNEL}`))
      .then(() => {
        if (client !== next) return;
        // Anything may have changed while nobody listened.
        emit('all');
        live = true;
        schedule(sendHeartbeat, heartbeatIntervalMs);
      })
      .catch((error: unknown) => lost(messageOf(error)));
  };
  connect();

  return {
    get live() {
      return live;
    },
    onChange(listener) {
      listeners.push(listener);
    },
    async announce(em, topic) {
      emit(topic);
      await em.getConnection().execute(`select pg_notify('${CHANGE_CHANNEL}', ?)`, [topic]);
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      clearTimeout(heartbeatTimer);
      live = false;
      const current = client;
      client = undefined;
      if (current) await endWithin(current, CLOSE_GRACE_MS);
    },
  };
}

function topicOf(payload: string | undefined): ChangeTopic | 'all' {
  // An unknown payload (a newer engine's topic) clears everything rather than nothing.
  return CHANGE_TOPICS.find((topic) => topic === payload) ?? 'all';
}

/** Lets go of a connection that may be dead: asks it to end but never waits for a silent peer. */
function abandon(connection: pg.Client): void {
  connection.end().catch(() => undefined);
  connection.connection.stream.destroy();
}

async function endWithin(connection: pg.Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()));
  await Promise.race([connection.end().catch(() => undefined), gaveUp]);
  clearTimeout(timer);
  connection.connection.stream.destroy();
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
