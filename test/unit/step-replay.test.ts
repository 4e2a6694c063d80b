// Replay safety of the interpreter: histories recorded by an earlier worker
// (test/fixtures/replay/, see its README) must replay on today's workflow
// bundle without a nondeterminism error — the same timers, activities (names,
// order), updates and search attribute upserts in the same order. Executions
// started before a change keep running on the new worker only if they do.
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { flowDataConverter } from '../../workflows/codec/payload-codec.ts';
import { workflowBundle } from '../../workflows/worker.ts';

const { History, ActivityTaskScheduledEventAttributes } = {
  History: proto.temporal.api.history.v1.History,
  ActivityTaskScheduledEventAttributes: proto.temporal.api.history.v1.ActivityTaskScheduledEventAttributes,
};
// Replay workers log every state change at INFO; only trouble is worth reading here.
Runtime.install({ logger: new DefaultLogger('WARN') });

const FIXTURES = new URL('../fixtures/replay/', import.meta.url);
const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.history.pb'))
  .sort();

function history(name: string) {
  return History.decode(readFileSync(new URL(name, FIXTURES)));
}

async function replay(
  histories: { name: string; history: ReturnType<typeof History.decode> }[],
): Promise<Map<string, Error | undefined>> {
  const options = {
    workflowBundle: await workflowBundle(),
    dataConverter: flowDataConverter(undefined),
    // The step metrics sink (never called during replay, but the bundle references it).
    sinks: { flowhookSteps: { finished: { fn: () => undefined } } },
  };
  const results = new Map<string, Error | undefined>();
  const source = histories.map(({ name, history }) => ({ workflowId: name, history }));
  for await (const result of Worker.runReplayHistories(options, source)) results.set(result.workflowId, result.error);
  return results;
}

test('the recorded histories cover every step kind and both response modes', (t) => {
  const recordedBeforeTheRegistry = [
    'instant-all-kinds.history.pb',
    'instant-fail.history.pb',
    'sync-bad-status.history.pb',
    'sync-deferral-before-respond.history.pb',
    'sync-respond-then-defer.history.pb',
  ];
  for (const name of recordedBeforeTheRegistry) t.true(fixtures.includes(name), name);
});

test('histories recorded before the step registry replay on the current bundle', async (t) => {
  const results = await replay(fixtures.map((name) => ({ name, history: history(name) })));
  t.is(results.size, fixtures.length);
  for (const [name, error] of results) t.is(error, undefined, `${name}: ${error?.message}`);
});

test('a history whose commands differ from what the code schedules fails the replay', async (t) => {
  // The control: the check above can fail. An activity renamed in the history is not what the code schedules.
  const altered = history('instant-all-kinds.history.pb');
  const scheduled = altered.events.find((event) => event.activityTaskScheduledEventAttributes)!;
  scheduled.activityTaskScheduledEventAttributes = ActivityTaskScheduledEventAttributes.create({
    ...scheduled.activityTaskScheduledEventAttributes,
    activityType: { name: 'somethingElse' },
  });
  const results = await replay([{ name: 'altered', history: altered }]);
  t.regex(results.get('altered')?.message ?? 'replayed without error', /nondetermin/i);
});

test('a debounce collector begun before maxWait had a default replays as it ran: one window for twelve periods of calls', async (t) => {
  // Recorded by record-collector-history.ts on the code before the default: calls every 300 ms for 12 s, a 1 s period.
  const name = 'debounce-without-max-wait.history.pb';
  const recorded = history(name);
  const children = recorded.events.filter((event) => event.startChildWorkflowExecutionInitiatedEventAttributes);
  const updates = recorded.events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes);
  t.is(children.length, 1, 'one execution for the whole burst, as the code then did');
  t.true(
    updates.length > 30,
    `${updates.length} calls: the default (ten periods) would have closed the window after about 33`,
  );
  t.false(
    recorded.events.some((event) => event.markerRecordedEventAttributes),
    'no patch marker: the replay takes the unbounded path',
  );
  const results = await replay([{ name, history: recorded }]);
  t.is(results.get(name), undefined, results.get(name)?.message);
});
