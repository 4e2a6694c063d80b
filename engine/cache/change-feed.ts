// Cross-process cache invalidation through PostgreSQL LISTEN/NOTIFY. Every
// write that changes what the webhook hot path reads (publish, unpublish,
// secret rotation, service users) sends a notification after it commits; every
// engine listening clears its caches. While the listening connection is down
// the caches are bypassed, so a missed notification can never serve stale data.
import pg from 'pg';
import type { Logger } from 'pino';
import type { EntityManager } from '@mikro-orm/postgresql';

export const CHANGE_CHANNEL = 'flowhook_changes';
export type ChangeTopic = 'flows' | 'users';

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

export function startChangeFeed(databaseUrl: string, logger: Logger): ChangeFeed {
  const listeners: ((topic: ChangeTopic | 'all') => void)[] = [];
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  const emit = (topic: ChangeTopic | 'all') => listeners.forEach((listener) => listener(topic));

  const connect = async () => {
    const next = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
    const lost = () => {
      if (client !== next) return;
      live = false;
      client = undefined;
      emit('all');
      next.end().catch(() => undefined);
      if (!closed) retryTimer = setTimeout(() => void connect(), 1000);
    };
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', (message) => emit(message.payload === 'flows' || message.payload === 'users' ? message.payload : 'all'));
    client = next;
    try {
      await next.connect();
      await next.query(`listen ${CHANGE_CHANNEL}`);
      // Anything may have changed while nobody listened.
      emit('all');
      live = true;
    } catch (error) {
      logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'change feed unavailable; caches bypassed until it reconnects');
      lost();
    }
  };
  void connect();

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
      live = false;
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
