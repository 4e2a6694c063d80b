// The caller directory answers an unknown Basic user name from memory after
// the first miss, as it does a known one: a name nobody has must not cost a
// database round trip a wrong key does not (the timing would tell names apart).
import test from 'ava';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeFeed, ChangeTopic } from '../../engine/infrastructure/cache/change-feed.ts';
import { createCallerDirectory } from '../../engine/domain/callers/caller-directory.ts';

function liveFeed(): ChangeFeed & { change(topic: ChangeTopic): void } {
  const listeners: ((topic: ChangeTopic | 'all') => void)[] = [];
  return {
    live: true,
    onChange: (listener) => void listeners.push(listener),
    announce: async () => undefined,
    close: async () => undefined,
    change: (topic) => listeners.forEach((listener) => listener(topic)),
  };
}

test('an unknown user name is looked up once, until users change', async (t) => {
  let lookups = 0;
  const em = { findOne: async () => (lookups++, null), find: async () => [] } as unknown as EntityManager;
  const feed = liveFeed();
  const directory = createCallerDirectory(feed);
  t.is(await directory.serviceUser(em, 'ghost'), undefined);
  t.is(await directory.serviceUser(em, 'ghost'), undefined);
  t.is(lookups, 1);
  // Creating a user announces `users`: the name is looked up again and found from then on.
  feed.change('users');
  t.is(await directory.serviceUser(em, 'ghost'), undefined);
  t.is(lookups, 2);
});
