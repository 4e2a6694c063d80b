import test from 'ava';
import type { ChangeFeed, ChangeTopic } from '../../engine/cache/change-feed.ts';
import { SnapshotCache } from '../../engine/cache/snapshot-cache.ts';

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

test('never keeps misses, and bypasses memory while the feed is down', async (t) => {
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
