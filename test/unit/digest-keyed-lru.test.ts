import test from 'ava';
import { DigestKeyedLru, keyDigest } from '../../engine/infrastructure/cache/digest-keyed-lru.ts';

test('keys are held as 22-character digests, whatever their length, and tell different keys apart', (t) => {
  t.is(keyDigest('').length, 22);
  t.is(keyDigest('x'.repeat(100_000)).length, 22);
  t.not(keyDigest('Default\u0000orders.new'), keyDigest('Default\u0000orders.new2'));
  t.is(keyDigest('Contoso & Co'), keyDigest('Contoso & Co'));
});

test('at the bound the least recently used entry makes room; a read counts as a use', (t) => {
  const lru = new DigestKeyedLru<number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  t.is(lru.get('a'), 1);
  lru.set('c', 3);
  t.is(lru.size, 2);
  t.is(lru.get('b'), undefined, 'b was used least recently');
  t.is(lru.get('a'), 1);
  t.is(lru.get('c'), 3);
  lru.set('a', 10);
  t.is(lru.size, 2, 'replacing a value does not grow the map');
  t.is(lru.get('a'), 10);
  lru.delete('a');
  t.is(lru.get('a'), undefined);
  t.deepEqual([...lru.values()], [3]);
});

test('twenty thousand long made-up keys leave at most the bound', (t) => {
  const lru = new DigestKeyedLru<boolean>(1000);
  for (let i = 0; i < 20_000; i++) lru.set(`${'k'.repeat(7000)}${i}`, true);
  t.is(lru.size, 1000);
});

test('a bound below one is refused', (t) => {
  t.throws(() => new DigestKeyedLru(0), { instanceOf: RangeError });
});
