// Option values the CLI can check itself are usage errors (exit 2, nothing
// sent) whose message says what is accepted, as the CLI reference promises.
import test from 'ava';
import { runCapturing } from '../support/cli-runner.ts';

// No engine: a usage error is found before any client is made.
const unreachable = {
  execution: {
    client: () => {
      throw new Error('nothing may be sent for a usage error');
    },
  },
};

test('execution list: a limit out of range, an unknown status or outcome exit 2 and name what is accepted', async (t) => {
  const limit = await runCapturing(['execution', 'list', '--limit', '9999'], unreachable);
  t.is(limit.code, 2);
  t.regex(limit.err, /option '--limit <n>' argument '9999' is invalid\. a whole number in 1\.\.500/);
  t.is((await runCapturing(['execution', 'list', '--limit', '0'], unreachable)).code, 2);

  const status = await runCapturing(['execution', 'list', '--status', 'FAILED,BOGUS'], unreachable);
  t.is(status.code, 2);
  t.regex(status.err, /"BOGUS" is not one of RUNNING, COMPLETED, FAILED, TIMED_OUT, TERMINATED, CANCELED/);

  const outcome = await runCapturing(['execution', 'list', '--outcome', 'done'], unreachable);
  t.is(outcome.code, 2);
  t.regex(outcome.err, /"done" is not one of responded, sync-timeout, flow-ended, instant, failed/);
});

test('execution list: valid values in any case reach the engine', async (t) => {
  const asked: unknown[] = [];
  const run = await runCapturing(
    ['execution', 'list', '--status', 'running', '--status', 'Failed', '--outcome', 'SYNC_TIMEOUT', '--limit', '500'],
    {
      execution: {
        client: () =>
          ({
            listExecutions: async (request: unknown) => {
              asked.push(request);
              return { executions: [] };
            },
          }) as never,
      },
    },
  );
  t.is(run.code, 0, run.err);
  t.like(asked[0], { statuses: ['RUNNING', 'FAILED'], outcome: 'SYNC_TIMEOUT', limit: 500 });
});

test('execution list says when the engine could read a company only so far', async (t) => {
  const run = await runCapturing(['execution', 'list', '--company', `O'Brien Ltd.`], {
    execution: { client: () => ({ listExecutions: async () => ({ executions: [], partial: true }) }) as never },
  });
  t.is(run.code, 0, run.err);
  t.regex(run.out, /No executions\.\nSome executions may be missing: this company is read only so far/);
});

test('execution rerun: an unknown status or a max over 1000 exit 2 before anything is sent', async (t) => {
  const status = await runCapturing(['execution', 'rerun', '--company', 'Default', '--status', 'RUNNING'], unreachable);
  t.is(status.code, 2);
  t.regex(status.err, /"RUNNING" is not one of FAILED, TIMED_OUT, TERMINATED, CANCELED, COMPLETED/);
  const max = await runCapturing(
    ['execution', 'rerun', '--company', 'Default', '--status', 'FAILED', '--max', '5000'],
    unreachable,
  );
  t.is(max.code, 2);
  t.regex(max.err, /a whole number in 1\.\.1000/);
});
