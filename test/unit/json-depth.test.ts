import test from 'ava';
import { nestsDeeperThan } from '../../common/json-depth.ts';

test('nesting is counted across objects and arrays', (t) => {
  t.false(nestsDeeperThan('{"a":[{"b":[]}]}', 4));
  t.true(nestsDeeperThan('{"a":[{"b":[]}]}', 3));
  t.false(nestsDeeperThan('1', 0));
});

test('brackets inside strings, also after escaped quotes and backslashes, do not count', (t) => {
  t.false(nestsDeeperThan('{"a":"[[[{{{"}', 1));
  t.false(nestsDeeperThan('{"a":"\\"[[[","b":"\\\\"}', 1));
  t.true(nestsDeeperThan('{"a":"\\\\","b":[[]]}', 2));
});

test('a very deep text is judged without recursion', (t) => {
  const deep = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
  t.true(nestsDeeperThan(deep, 100));
});
