import test from 'ava';
import { startPeriodicTask } from '../../engine/infrastructure/housekeeping/periodic-task.ts';
import { eventually } from '../support/eventually.ts';

/** A round's work taking time, and (last test) a while in which nothing may happen. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a round runs at start and then every interval, never two at once', async (t) => {
  let rounds = 0;
  let active = 0;
  let overlapped = false;
  const task = startPeriodicTask(async () => {
    rounds++;
    active++;
    if (active > 1) overlapped = true;
    // Longer than the interval: the next round waits for this one.
    await sleep(30);
    active--;
  }, 5);
  t.is(rounds, 1, 'the first round starts at once');
  // Waited for, not timed: a loaded machine delays timers.
  try {
    await eventually(() => rounds, {
      until: (count) => count >= 3,
      timeoutMs: 10_000,
      intervalMs: 10,
      what: 'three rounds',
    });
  } finally {
    await task.close();
  }
  t.true(rounds >= 3, `rounds ${rounds}`);
  t.false(overlapped);
});

test('close waits for the round under way, and none starts after it', async (t) => {
  let finished = false;
  let rounds = 0;
  const task = startPeriodicTask(async () => {
    rounds++;
    await sleep(50);
    finished = true;
  }, 1);
  await task.close();
  t.true(finished, 'close resolved only after the round ended');
  const after = rounds;
  // Nothing is awaited here: the point is that no round starts in a while (30 intervals).
  await sleep(30);
  t.is(rounds, after);
});
