// The grant check's memory of Temporal's answers (security/execution-liveness.ts):
// a run that runs is believed for RUNNING_TTL_MS, one that does not for
// CLOSED_TTL_MS; a run with another mark (a later run of the same id) does
// not count; no answer is never remembered; at most maxEntries answers.
import test from 'ava';
import type { ExecutionRunState } from '../../engine/domain/executions/execution-still-runs.ts';
import { UnavailableError } from '../../engine/errors.ts';
import {
  CLOSED_TTL_MS,
  createExecutionLiveness,
  MAX_ENTRIES,
  RUNNING_TTL_MS,
} from '../../engine/domain/executions/execution-liveness.ts';

/** Temporal as the test says it is: execution id → its current run; every question counted. */
function temporal(runs: Record<string, ExecutionRunState | Error>) {
  const asked: string[] = [];
  return {
    runs,
    asked,
    ask: async (executionId: string): Promise<ExecutionRunState> => {
      asked.push(executionId);
      const run = runs[executionId] ?? { running: false, runMark: undefined };
      if (run instanceof Error) throw run;
      return run;
    },
  };
}

test('a running answer is believed for RUNNING_TTL_MS, then Temporal is asked again', async (t) => {
  let now = 1_000;
  const world = temporal({ 'pay:1': { running: true, runMark: 'm1' } });
  const liveness = createExecutionLiveness({ ask: world.ask, now: () => now });
  t.true(await liveness.stillRuns('pay:1', 'm1'));
  now += RUNNING_TTL_MS - 1;
  world.runs['pay:1'] = { running: false, runMark: 'm1' };
  t.true(await liveness.stillRuns('pay:1', 'm1'), 'within the bound the answer stands');
  t.is(world.asked.length, 1);
  now += 1;
  t.false(await liveness.stillRuns('pay:1', 'm1'), 'then the execution has closed');
  t.is(world.asked.length, 2);
});

test('a closed answer is believed for CLOSED_TTL_MS', async (t) => {
  let now = 0;
  const world = temporal({ 'pay:1': { running: false, runMark: 'm1' } });
  const liveness = createExecutionLiveness({ ask: world.ask, now: () => now });
  t.false(await liveness.stillRuns('pay:1', 'm1'));
  now += CLOSED_TTL_MS - 1;
  t.false(await liveness.stillRuns('pay:1', 'm1'));
  t.is(world.asked.length, 1);
  now += 1;
  t.false(await liveness.stillRuns('pay:1', 'm1'));
  t.is(world.asked.length, 2);
  t.true(RUNNING_TTL_MS < CLOSED_TTL_MS);
});

test('only the run the grant was minted for counts: another mark, or a g1 grant against a marked run, does not', async (t) => {
  const world = temporal({
    'pay:1': { running: true, runMark: 'new' },
    'pay:old': { running: true, runMark: undefined },
  });
  const liveness = createExecutionLiveness({ ask: world.ask });
  t.false(await liveness.stillRuns('pay:1', 'old'), 'a grant of an earlier run with the same id');
  t.false(await liveness.stillRuns('pay:1', undefined), 'a g1 grant against a run started with marks');
  t.true(await liveness.stillRuns('pay:1', 'new'), "the run's own grant, although the id was just answered for others");
  t.true(await liveness.stillRuns('pay:old', undefined), 'a g1 grant of a run started before marks');
  t.false(await liveness.stillRuns('pay:old', 'new'));
  t.false(await liveness.stillRuns('pay:unknown', undefined), 'an execution Temporal does not know');
});

test('no answer is never remembered: the error travels on and the next call asks again', async (t) => {
  const world = temporal({
    'pay:1': new UnavailableError('Temporal did not say whether execution "pay:1" still runs'),
  });
  const liveness = createExecutionLiveness({ ask: world.ask });
  await t.throwsAsync(liveness.stillRuns('pay:1', 'm1'), { instanceOf: UnavailableError });
  world.runs['pay:1'] = { running: true, runMark: 'm1' };
  t.true(await liveness.stillRuns('pay:1', 'm1'));
  t.is(world.asked.length, 2);
});

test('at most maxEntries answers: the oldest goes first', async (t) => {
  const world = temporal({});
  const lookups: boolean[] = [];
  const liveness = createExecutionLiveness({
    ask: world.ask,
    maxEntries: 3,
    observeLookup: (hit) => lookups.push(hit),
  });
  for (const id of ['a', 'b', 'c', 'x'.repeat(100_000)]) await liveness.stillRuns(id, undefined);
  t.is(world.asked.length, 4);
  await liveness.stillRuns('b', undefined);
  await liveness.stillRuns('x'.repeat(100_000), undefined);
  t.is(world.asked.length, 4, 'b and the long id are still remembered');
  await liveness.stillRuns('a', undefined);
  t.is(world.asked.length, 5, 'a, the oldest, went when the fourth came');
  t.deepEqual(lookups, [false, false, false, false, true, true, false]);
  t.true(MAX_ENTRIES >= 1000);
});
