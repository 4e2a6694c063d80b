import test from 'ava';
import { startPeriodicTask } from '../../engine/housekeeping/periodic-task.ts';

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
  for (const deadline = Date.now() + 10_000; rounds < 3 && Date.now() < deadline; ) await sleep(10);
  await task.close();
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
  await sleep(30);
  t.is(rounds, after);
});
