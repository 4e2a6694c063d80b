// The change feed must notice a listening connection that dies without a word —
// frozen behind a proxy, or cut by the server — within its heartbeat bound,
// drop every cache, and come back by itself. Against a real PostgreSQL.
import test, { type ExecutionContext } from 'ava';
import pg from 'pg';
import pino from 'pino';
import {
  CHANGE_CHANNEL,
  CHANGE_FEED_APPLICATION_NAME,
  startChangeFeed,
  type ChangeFeed,
  type ChangeFeedOptions,
  type ChangeTopic,
} from '../../engine/infrastructure/cache/change-feed.ts';
import { eventually } from '../support/eventually.ts';
import { createTestDatabase } from '../support/stack.ts';
import { startFreezableProxy, type FreezableProxy } from '../support/freezable-proxy.ts';

const HEARTBEAT = { heartbeatIntervalMs: 300, heartbeatTimeoutMs: 500 } satisfies ChangeFeedOptions;
/** Scheduling and connection set-up on a busy test machine. */
const SLACK_MS = 1000;
/** Reconnect delay (1 s), then connecting and listening. */
const RECONNECT_BOUND_MS = 1000 + 2000;

const silent = pino({ level: 'silent' });

interface WatchedFeed {
  feed: ChangeFeed;
  /** Topics emitted since the last clear. */
  topics: (ChangeTopic | 'all')[];
}

function watchFeed(t: ExecutionContext, databaseUrl: string, options: ChangeFeedOptions): WatchedFeed {
  const feed = startChangeFeed(databaseUrl, silent, options);
  const topics: (ChangeTopic | 'all')[] = [];
  feed.onChange((topic) => topics.push(topic));
  t.teardown(() => feed.close());
  return { feed, topics };
}

async function proxyTo(t: ExecutionContext, databaseUrl: string): Promise<FreezableProxy> {
  const proxy = await startFreezableProxy(databaseUrl);
  t.teardown(() => proxy.close());
  return proxy;
}

/** Milliseconds until the condition held; fails the test at the bound. */
async function within(boundMs: number, condition: () => boolean, what: string): Promise<number> {
  const started = performance.now();
  await eventually(condition, { timeoutMs: boundMs, intervalMs: 20, what });
  return performance.now() - started;
}

/** For the waits whose point is that nothing happens meanwhile (no cache cleared, never live). */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sql(databaseUrl: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

const isListening = (connection: { clientSent: string }) => connection.clientSent.includes(`listen ${CHANGE_CHANNEL}`);

test('a frozen listening connection is noticed within the heartbeat bound; caches are dropped and the feed reconnects', async (t) => {
  const database = await createTestDatabase();
  const proxy = await proxyTo(t, database);
  const { feed, topics } = watchFeed(t, proxy.url, HEARTBEAT);
  await within(RECONNECT_BOUND_MS, () => feed.live, 'live at start');
  // A few heartbeats go by without anything being cleared.
  topics.length = 0;
  await sleep(3 * HEARTBEAT.heartbeatIntervalMs);
  t.true(feed.live);
  t.deepEqual(topics, [], 'heartbeats are not changes');

  t.is(proxy.freeze(isListening), 1, 'the listening connection is frozen; new connections still flow');
  const noticedAfter = await within(
    HEARTBEAT.heartbeatIntervalMs + HEARTBEAT.heartbeatTimeoutMs + SLACK_MS,
    () => !feed.live,
    'not live after the freeze',
  );
  t.log(`not live ${Math.round(noticedAfter)} ms after the freeze`);
  t.true(topics.includes('all'), 'every cache was told to drop everything');

  const backAfter = await within(RECONNECT_BOUND_MS, () => feed.live, 'live again over a new connection');
  t.log(`live again ${Math.round(backAfter)} ms later`);
  t.is(
    proxy.connections.filter((connection) => isListening(connection) && !connection.frozen).length,
    1,
    'listening over a fresh connection',
  );

  topics.length = 0;
  await sql(database, 'select pg_notify($1, $2)', [CHANGE_CHANNEL, 'flows']);
  await within(SLACK_MS, () => topics.includes('flows'), 'changes heard again');
});

test('during a full partition the feed stays down; once it heals the feed is live again', async (t) => {
  const database = await createTestDatabase();
  const proxy = await proxyTo(t, database);
  const { feed, topics } = watchFeed(t, proxy.url, HEARTBEAT);
  await within(RECONNECT_BOUND_MS, () => feed.live, 'live at start');
  topics.length = 0;

  proxy.partition();
  await within(
    HEARTBEAT.heartbeatIntervalMs + HEARTBEAT.heartbeatTimeoutMs + SLACK_MS,
    () => !feed.live,
    'not live after the partition',
  );
  t.true(topics.includes('all'));
  // Reconnect attempts reach nothing: the feed must not claim to be live meanwhile.
  for (const until = performance.now() + 3000; performance.now() < until; await sleep(50))
    t.false(feed.live, 'never live while partitioned');

  proxy.thaw();
  // At worst an attempt begun just before the thaw must time out first (connecting and listening: 5 s + the heartbeat timeout).
  const backAfter = await within(
    1000 + 5000 + HEARTBEAT.heartbeatTimeoutMs + RECONNECT_BOUND_MS,
    () => feed.live,
    'live after the partition healed',
  );
  t.log(`live again ${Math.round(backAfter)} ms after the partition healed`);
});

test('a listening backend terminated by the server is noticed at once; the feed reconnects', async (t) => {
  const database = await createTestDatabase();
  const { feed, topics } = watchFeed(t, database, {});
  await within(RECONNECT_BOUND_MS, () => feed.live, 'live at start');
  topics.length = 0;

  const { rows } = await sql(
    database,
    'select pg_terminate_backend(pid) as terminated from pg_stat_activity where datname = current_database() and application_name = $1',
    [CHANGE_FEED_APPLICATION_NAME],
  );
  t.deepEqual(rows, [{ terminated: true }], 'exactly the feed’s backend');
  const noticedAfter = await within(SLACK_MS, () => !feed.live, 'not live after the termination');
  t.log(`not live ${Math.round(noticedAfter)} ms after the termination`);
  t.true(topics.includes('all'));
  await within(RECONNECT_BOUND_MS, () => feed.live, 'live again');
});

test('heartbeats, ours and other feeds’, are never taken for changes; real topics and unknown payloads still are', async (t) => {
  const database = await createTestDatabase();
  const fast = { heartbeatIntervalMs: 50, heartbeatTimeoutMs: 500 };
  const first = watchFeed(t, database, fast);
  const second = watchFeed(t, database, fast);
  await within(RECONNECT_BOUND_MS, () => first.feed.live && second.feed.live, 'both live');
  first.topics.length = 0;
  second.topics.length = 0;
  await sleep(1000);
  t.deepEqual([first.topics, second.topics], [[], []], 'dozens of heartbeats on the shared channel cleared nothing');
  t.true(first.feed.live && second.feed.live);

  await sql(database, 'select pg_notify($1, $2)', [CHANGE_CHANNEL, 'users']);
  await sql(database, 'select pg_notify($1, $2)', [CHANGE_CHANNEL, 'something-newer']);
  await within(SLACK_MS, () => first.topics.length === 2 && second.topics.length === 2, 'both heard both');
  t.deepEqual(
    [first.topics, second.topics],
    [
      ['users', 'all'],
      ['users', 'all'],
    ],
  );
});

test('close() returns promptly even when the listening connection is silently dead', async (t) => {
  const database = await createTestDatabase();
  const proxy = await proxyTo(t, database);
  // No heartbeat within the test: close() meets the frozen connection itself.
  const feed = startChangeFeed(proxy.url, silent, { heartbeatIntervalMs: 60_000 });
  t.teardown(() => feed.close());
  await within(RECONNECT_BOUND_MS, () => feed.live, 'live at start');
  proxy.freeze();
  const started = performance.now();
  await feed.close();
  const took = performance.now() - started;
  t.log(`close() took ${Math.round(took)} ms`);
  t.true(took < 2000, `close() took ${took} ms`);
  t.false(feed.live);
});
