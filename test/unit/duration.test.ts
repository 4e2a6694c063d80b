import test from 'ava';
import { parseDuration } from '../../flow/index.ts';

test('durations add up their groups', (t) => {
  t.is(parseDuration('5s'), 5000);
  t.is(parseDuration('1m30s'), 90_000);
  t.is(parseDuration('250ms'), 250);
  t.is(parseDuration('2h'), 7_200_000);
  t.is(parseDuration('1d'), 86_400_000);
  t.is(parseDuration('1.5s'), 1500);
});

test('anything else is a message, not a number', (t) => {
  for (const text of ['', '5', 's', '5 s', '5x', '-1s', '1s2']) t.is(typeof parseDuration(text), 'string', text);
});
