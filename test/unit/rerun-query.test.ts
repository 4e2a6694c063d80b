// The visibility query a bulk re-run selects with, and the pace it starts at:
// operator input is quoted so it cannot change the query's shape, statuses
// are Temporal's spelling, and starts are spaced evenly across callers.
import test from 'ava';
import {
  executionStatusValue,
  filterClauses,
  needsExactCompanyCheck,
  rerunnableStatus,
  rerunQuery,
} from '../../engine/domain/executions/visibility-query.ts';
import { createRerunPacer } from '../../engine/domain/reruns/rerun-pacer.ts';
import { InvalidArgumentError } from '../../engine/errors.ts';

test('a filter becomes one query of flowhook executions on the task queue', (t) => {
  const query = rerunQuery('flowhook', {
    company: 'Acme Ltd.',
    activity: 'Orders.New',
    statuses: ['FAILED', 'timed-out'],
    since: new Date('2026-11-23T10:00:00Z'),
    until: new Date('2026-11-23T12:00:00.500Z'),
  });
  t.is(
    query,
    "WorkflowType = 'flowWorkflow' AND TaskQueue = 'flowhook' AND Company = 'Acme Ltd.' AND ExecutionStatus IN ('Failed', 'TimedOut') AND " +
      "FlowActivity = 'orders.new' AND StartTime >= '2026-11-23T10:00:00.000Z' AND StartTime < '2026-11-23T12:00:00.500Z'",
  );
});

test('quotes and backslashes in an activity stay inside their literal', (t) => {
  const query = rerunQuery('q', { company: 'Acme', activity: "x' OR '1'='1\\", statuses: ['FAILED'] });
  t.true(query.includes("FlowActivity = 'x\\' or \\'1\\'=\\'1\\\\'"), query);
  // Every quote the input brought is escaped: the unescaped ones are exactly the query's own.
  const unescaped = query.replace(/\\\\/g, '').replace(/\\'/g, '').match(/'/g)!.length;
  t.is(unescaped, 2 * 5, 'five literals: type, task queue, company, activity, one status');
});

test('a company with a quote is chosen by the prefix before it (the engine then keeps exact matches only)', (t) => {
  t.false(needsExactCompanyCheck('Acme Ltd.'));
  t.true(needsExactCompanyCheck("O'Brien Ltd."));
  const query = rerunQuery('q', { company: "O'Brien' OR Company != '", statuses: ['FAILED'] });
  t.true(query.includes("AND Company STARTS_WITH 'O' AND"), query);
  t.false(query.includes('OR'));
});

test('statuses: the CLI spellings, CANCELLED as CANCELED, duplicates once; others refused', (t) => {
  t.is(rerunnableStatus('cancelled'), 'CANCELED');
  t.is(rerunnableStatus(' Timed_Out '), 'TIMED_OUT');
  t.regex(
    rerunQuery('q', { company: 'c', statuses: ['FAILED', 'failed', 'TERMINATED'] }),
    /ExecutionStatus IN \('Failed', 'Terminated'\)/,
  );
  const running = t.throws(() => rerunnableStatus('RUNNING'), { instanceOf: InvalidArgumentError });
  t.regex(running.message, /one of FAILED, TIMED_OUT, TERMINATED, CANCELED, COMPLETED/);
  t.throws(() => rerunQuery('q', { company: 'c', statuses: ["FAILED') OR ('1"] }), {
    instanceOf: InvalidArgumentError,
  });
});

test('a company and a status are required; since must come before until', (t) => {
  t.throws(() => rerunQuery('q', { company: '', statuses: ['FAILED'] }), { message: /company is required/ });
  t.throws(() => rerunQuery('q', { company: 'c', statuses: [] }), { message: /at least one status/ });
  const at = new Date('2026-11-23T10:00:00Z');
  t.throws(() => rerunQuery('q', { company: 'c', statuses: ['FAILED'], since: at, until: at }), {
    message: /since must be before until/,
  });
});

test('the pacer spaces starts evenly, whoever asks, and gives up when the caller goes away', async (t) => {
  let clock = 1_000;
  const pacer = createRerunPacer(50, () => clock);
  const turns: number[] = [];
  const started = performance.now();
  await Promise.all(
    [0, 1, 2].map(async () => {
      await pacer.turn();
      turns.push(performance.now() - started);
    }),
  );
  // 50 per second: slots at 0, 20 and 40 ms on the pacer's clock (here frozen, so waits are the full slot distance).
  t.is(turns.length, 3);
  t.true(turns[2]! >= 35, `third start after ${turns[2]} ms`);
  clock += 10_000;
  const aborted = new AbortController();
  aborted.abort(new Error('caller left'));
  await t.throwsAsync(pacer.turn(aborted.signal), { message: 'caller left' });
});

test("the list's filters: each narrows, values stay inside their literals, bad ones are refused naming the filter", (t) => {
  t.deepEqual(
    filterClauses({
      flowName: 'orders',
      flowVersion: 3,
      outcome: 'sync-timeout',
      caller: "user:o'neil",
      since: new Date('2026-11-26T10:00:00Z'),
    }),
    [
      "FlowName = 'orders'",
      'FlowVersion = 3',
      "FlowOutcome = 'sync timeout'",
      "FlowCaller = 'user:o\\'neil'",
      "StartTime >= '2026-11-26T10:00:00.000Z'",
    ],
  );
  t.deepEqual(filterClauses({}), []);
  t.deepEqual(
    filterClauses({ keyLabels: ["INV-7'", '#AbC'] }),
    ["FlowKey IN ('INV-7\\'', '#AbC')"],
    'a flow-control key by each of its labels',
  );
  t.throws(() => filterClauses({ outcome: 'exploded' }), {
    instanceOf: InvalidArgumentError,
    message: /outcome: one of/,
  });
  t.throws(() => filterClauses({ flowVersion: -1 }), { message: /flow version/ });
  t.is(executionStatusValue('running'), 'Running');
  t.is(executionStatusValue('timed-out'), 'TimedOut');
  t.throws(() => executionStatusValue("Running') OR ('1"), { instanceOf: InvalidArgumentError });
  // A listing's refusal names every status a listing takes, RUNNING included.
  t.throws(() => executionStatusValue('BOGUS'), {
    message: 'status: one of RUNNING, FAILED, TIMED_OUT, TERMINATED, CANCELED, COMPLETED; got "BOGUS"',
  });
});
