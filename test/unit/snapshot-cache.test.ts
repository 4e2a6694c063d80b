import test from 'ava';
import type { ChangeFeed, ChangeTopic } from '../../engine/infrastructure/cache/change-feed.ts';
import { SnapshotCache } from '../../engine/infrastructure/cache/snapshot-cache.ts';

/** A change feed whose liveness and notifications the test controls. */
function fakeFeed() {
  const listeners: ((topic: ChangeTopic | 'all') => void)[] = [];
  const feed = {
    live: true,
    onChange: (listener: (topic: ChangeTopic | 'all') => void) => listeners.push(listener),
    announce: async () => undefined,
    close: async () => undefined,
    emit: (topic: ChangeTopic | 'all') => listeners.forEach((listener) => listener(topic)),
  };
  return feed as ChangeFeed & { live: boolean; emit: (topic: ChangeTopic | 'all') => void };
}

test('serves a found value from memory until its topic changes', async (t) => {
  const feed = fakeFeed();
  const cache = new SnapshotCache<number>(feed, 'flows');
  let loads = 0;
  const load = async () => ++loads;
  t.is(await cache.get('k', load), 1);
  t.is(await cache.get('k', load), 1);
  feed.emit('users');
  t.is(await cache.get('k', load), 1, 'another topic leaves it alone');
  feed.emit('flows');
  t.is(await cache.get('k', load), 2);
  feed.emit('all');
  t.is(await cache.get('k', load), 3);
});

test('never keeps misses unless asked to, and bypasses memory while the feed is down', async (t) => {
  const feed = fakeFeed();
  const cache = new SnapshotCache<number>(feed, 'flows');
  let loads = 0;
  t.is(await cache.get('missing', async () => (loads++, undefined)), undefined);
  t.is(await cache.get('missing', async () => (loads++, undefined)), undefined);
  t.is(loads, 2);
  feed.live = false;
  let value = 10;
  t.is(await cache.get('k', async () => value), 10);
  value = 11;
  t.is(await cache.get('k', async () => value), 11, 'nothing was stored while down');
});

test('a load that raced with a change is not stored', async (t) => {
  const feed = fakeFeed();
  const cache = new SnapshotCache<string>(feed, 'flows');
  const stale = cache.get('k', async () => {
    feed.emit('flows');
    return 'old';
  });
  t.is(await stale, 'old');
  t.is(await cache.get('k', async () => 'new'), 'new');
});

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

test('an entry is reloaded once it reaches its maximum age, even while the feed is live and quiet', async (t) => {
  const feed = fakeFeed();
  const clock = manualClock();
  const cache = new SnapshotCache<number>(feed, 'users', { maxAgeMs: 30_000, now: clock.now });
  let loads = 0;
  const load = async () => ++loads;
  t.is(await cache.get('k', load), 1);
  clock.advance(29_999);
  t.is(await cache.get('k', load), 1, 'still young enough');
  clock.advance(1);
  t.is(await cache.get('k', load), 2, 'reloaded at its maximum age');
  clock.advance(29_999);
  t.is(await cache.get('k', load), 2, 'the reload starts a new age');
});

test('the maximum age defaults to 30 seconds', async (t) => {
  const clock = manualClock();
  const cache = new SnapshotCache<number>(fakeFeed(), 'users', { now: clock.now });
  let loads = 0;
  const load = async () => ++loads;
  await cache.get('k', load);
  clock.advance(29_000);
  t.is(await cache.get('k', load), 1);
  clock.advance(1_000);
  t.is(await cache.get('k', load), 2);
});

test('an entry’s age counts from when its load began, so a slow load does not stretch it', async (t) => {
  const clock = manualClock();
  const cache = new SnapshotCache<string>(fakeFeed(), 'users', { maxAgeMs: 1000, now: clock.now });
  t.is(
    await cache.get('k', async () => {
      clock.advance(600);
      return 'slow';
    }),
    'slow',
  );
  clock.advance(400);
  t.is(await cache.get('k', async () => 'fresh'), 'fresh');
});

test('with a maximum age, a load that raced with a change is still not stored', async (t) => {
  const feed = fakeFeed();
  const clock = manualClock();
  const cache = new SnapshotCache<string>(feed, 'users', { maxAgeMs: 60_000, now: clock.now });
  t.is(
    await cache.get('k', async () => {
      feed.emit('all');
      return 'old';
    }),
    'old',
  );
  t.is(await cache.get('k', async () => 'new'), 'new');
  t.is(await cache.get('k', async () => 'newer'), 'new', 'a load with no change in between is kept');
});

test('a young entry is not served while the feed is down, nor kept from a load made while down', async (t) => {
  const feed = fakeFeed();
  const clock = manualClock();
  const cache = new SnapshotCache<string>(feed, 'users', { maxAgeMs: 60_000, now: clock.now });
  t.is(await cache.get('k', async () => 'warm'), 'warm');
  feed.live = false;
  t.is(await cache.get('k', async () => 'while down'), 'while down', 'memory bypassed although the entry is young');
  feed.live = true;
  t.is(await cache.get('k', async () => 'back'), 'back', 'nothing from before or during the outage is served');
});

test('a feed that goes down during a load keeps the result out of memory', async (t) => {
  const feed = fakeFeed();
  const cache = new SnapshotCache<string>(feed, 'users', { maxAgeMs: 60_000 });
  t.is(
    await cache.get('k', async () => {
      feed.live = false;
      return 'loaded while going down';
    }),
    'loaded while going down',
  );
  feed.live = true;
  t.is(await cache.get('k', async () => 'fresh'), 'fresh');
});

test('without a feed nothing is ever served from memory', async (t) => {
  const cache = new SnapshotCache<number>(undefined, 'flows');
  let loads = 0;
  await cache.get('k', async () => ++loads);
  t.is(await cache.get('k', async () => ++loads), 2);
});

test('with rememberMisses a miss is served from memory until its topic changes, but never while the feed is down', async (t) => {
  const feed = fakeFeed();
  const cache = new SnapshotCache<number>(feed, 'users', { rememberMisses: true });
  let loads = 0;
  const miss = async () => (loads++, undefined);
  t.is(await cache.get('ghost', miss), undefined);
  t.is(await cache.get('ghost', miss), undefined);
  t.is(loads, 1);
  feed.emit('users');
  t.is(await cache.get('ghost', async () => 7), 7, 'a change (the user was created) ends the remembered miss');
  feed.live = false;
  t.is(await cache.get('other', miss), undefined);
  t.is(await cache.get('other', miss), undefined);
  t.is(loads, 3);
});

test('tells its lookup observer every hit and miss, under its own name', async (t) => {
  const feed = fakeFeed();
  const seen: string[] = [];
  const cache = new SnapshotCache<number>(feed, 'users', {
    name: 'service_users',
    observeLookups: (name) => (hit) => seen.push(`${name}:${hit ? 'hit' : 'miss'}`),
  });
  await cache.get('k', async () => 1);
  await cache.get('k', async () => 1);
  feed.live = false;
  await cache.get('k', async () => 1);
  t.deepEqual(seen, ['service_users:miss', 'service_users:hit', 'service_users:miss']);
});

test('at its bound a flood of made-up names pushes out only the least recently used entry, not everything', async (t) => {
  const feed = fakeFeed();
  const cache = new SnapshotCache<string>(feed, 'users', { maxEntries: 3, rememberMisses: true });
  let loads = 0;
  const load = (value: string | undefined) => async () => (loads++, value);
  await cache.get('known-user', load('snapshot'));
  for (let i = 0; i < 10; i++) {
    // The known user keeps calling between the guesses, so it is never the least recently used.
    t.is(await cache.get('known-user', load('reloaded')), 'snapshot');
    t.is(await cache.get(`${'x'.repeat(10_000)}-${i}`, load(undefined)), undefined);
  }
  t.is(loads, 11, 'one load for the known user, one per made-up name');
});
