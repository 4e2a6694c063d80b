import test from 'ava';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { executionRunState, executionStillRuns } from '../../engine/domain/executions/execution-still-runs.ts';
import { UnavailableError } from '../../engine/errors.ts';
import { RUN_MARK_MEMO } from '../../engine/domain/executions/execution-grants.ts';

/** A client whose describe() answers as `answer` says; withDeadline just runs the call. */
function client(
  answer: (executionId: string) => Promise<{ status: { name: string }; memo?: Record<string, unknown> }>,
): Client {
  return {
    workflow: { getHandle: (executionId: string) => ({ describe: () => answer(executionId) }) },
    connection: { withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() },
  } as unknown as Client;
}

test('only a RUNNING execution still runs; closed ones and unknown ones do not', async (t) => {
  t.true(
    await executionStillRuns(
      client(async () => ({ status: { name: 'RUNNING' } })),
      'pay:1',
    ),
  );
  for (const name of ['COMPLETED', 'FAILED', 'TERMINATED', 'CANCELLED', 'TIMED_OUT', 'CONTINUED_AS_NEW']) {
    t.false(
      await executionStillRuns(
        client(async () => ({ status: { name } })),
        'pay:1',
      ),
      name,
    );
  }
  t.false(
    await executionStillRuns(
      client(async (id) => Promise.reject(new WorkflowNotFoundError('not found', id, undefined))),
      'pay:gone',
    ),
  );
});

test("the run's grant mark comes from its memo; runs started before marks, and unknown executions, have none", async (t) => {
  t.deepEqual(
    await executionRunState(
      client(async () => ({ status: { name: 'RUNNING' }, memo: { [RUN_MARK_MEMO]: 'mark-1', doNotLogPayload: true } })),
      'pay:1',
    ),
    { running: true, runMark: 'mark-1' },
  );
  t.deepEqual(
    await executionRunState(
      client(async () => ({ status: { name: 'COMPLETED' }, memo: { [RUN_MARK_MEMO]: 'mark-1' } })),
      'pay:1',
    ),
    { running: false, runMark: 'mark-1' },
  );
  t.deepEqual(
    await executionRunState(
      client(async () => ({ status: { name: 'RUNNING' } })),
      'pay:1',
    ),
    { running: true, runMark: undefined },
  );
  t.deepEqual(
    await executionRunState(
      client(async () => ({ status: { name: 'RUNNING' }, memo: { [RUN_MARK_MEMO]: 7 } })),
      'pay:1',
    ),
    { running: true, runMark: undefined },
  );
  t.deepEqual(
    await executionRunState(
      client(async (id) => Promise.reject(new WorkflowNotFoundError('not found', id, undefined))),
      'pay:gone',
    ),
    { running: false, runMark: undefined },
  );
});

test('Temporal not answering is no answer: UNAVAILABLE (the purge keeps the rows, a key registration is retried)', async (t) => {
  const error = await t.throwsAsync(
    executionStillRuns(
      client(async () => Promise.reject(new Error('14 UNAVAILABLE: connect ECONNREFUSED\nmore'))),
      'pay:1',
    ),
  );
  t.true(error instanceof UnavailableError);
  t.is(
    error?.message,
    'Temporal did not say whether execution "pay:1" still runs: 14 UNAVAILABLE: connect ECONNREFUSED',
  );
});
