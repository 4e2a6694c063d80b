// Keeps the callback_wait table (storage/callback-wait.entity.ts) from growing forever. The
// retention schedule's purge runs it (engine/domain/retention/); each statement is idempotent and
// skips rows another engine is deleting, so purges at once never wait on each other.
//
// A row is deleted once it can no longer change an answer, and only after
// FLOWHOOK_CALLBACK_RETENTION (default 30d) has passed since it last mattered:
// - a used row (the step took its callback) answers retried deliveries of the same body with
//   the first answer: kept for the retention after it was used;
// - a key row whose wait expired refuses deliveries as expired, which a missing row does too:
//   kept for the retention after it expired;
// - an unused row (a URL that was never called, a key still waiting) is kept while its execution
//   runs, however long that is — a flow can sleep for months before it waits. Rows older than
//   the retention are checked against Temporal, a bounded number of executions per round, and
//   those of an execution that has closed or no longer exists are deleted.
// Deletion changes no answer: a delivery that finds no row is refused as not found (404), as it
// would be by an expired or closed wait.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { forgetExecutionWaits } from './callback-waits.ts';
import { executionStillRuns } from '../executions/execution-still-runs.ts';

const BATCH = 5000;
/** Executions described per round: bounds the Temporal calls one round makes. */
const EXECUTIONS_PER_ROUND = 500;
const EXECUTIONS_PER_PAGE = 100;

const AGED_SQL = `
with old as (
  select "lookup" from "callback_wait"
  where "used_at" < now() - make_interval(secs => ?)
     or ("used_at" is null and "expires_at" < now() - make_interval(secs => ?))
  limit ${BATCH} for update skip locked
)
delete from "callback_wait" where "lookup" in (select "lookup" from old)`;

// Keyset paging by execution id: a round resumes where the previous one stopped, so executions
// that are still running do not hide the ones after them.
const OLD_UNUSED_SQL = `
select distinct "execution_id" from "callback_wait"
where "used_at" is null and "created_at" < now() - make_interval(secs => ?) and "execution_id" > ?
order by "execution_id" limit ${EXECUTIONS_PER_PAGE}`;

export interface CallbackWaitPurgeOptions {
  orm: MikroORM;
  temporal: Client;
  retentionMs: number;
  /** Batches of aged rows one round deletes at most (default: until none is full). */
  maxBatches?: number;
}

export interface CallbackWaitPurgeRound {
  /** Used rows and expired key rows past the retention. */
  aged: number;
  /** Unused rows of executions that have closed or no longer exist. */
  ofClosedExecutions: number;
  /** Executions asked about this round. */
  described: number;
  /** Left for the next round: aged rows beyond maxBatches, or executions after the cursor. */
  more: boolean;
}

/** Where the next round's look at unused rows starts; '' is the beginning. */
export interface PurgeCursor {
  after: string;
}

/** One round: aged rows in batches, then up to EXECUTIONS_PER_ROUND executions with old unused rows. */
export async function purgeCallbackWaits(
  options: CallbackWaitPurgeOptions,
  cursor: PurgeCursor = { after: '' },
): Promise<CallbackWaitPurgeRound> {
  const connection = options.orm.em.getConnection();
  const seconds = options.retentionMs / 1000;
  const round: CallbackWaitPurgeRound = { aged: 0, ofClosedExecutions: 0, described: 0, more: false };
  const maxBatches = options.maxBatches ?? Infinity;
  for (let batch = 0; ; batch++) {
    if (batch >= maxBatches) {
      round.more = true;
      break;
    }
    const result = await connection.execute<{ affectedRows: number }>(AGED_SQL, [seconds, seconds], 'run');
    const deleted = Number(result.affectedRows ?? 0);
    round.aged += deleted;
    if (deleted < BATCH) break;
  }
  while (round.described < EXECUTIONS_PER_ROUND) {
    const page = await connection.execute<{ execution_id: string }[]>(OLD_UNUSED_SQL, [seconds, cursor.after]);
    if (page.length === 0) {
      cursor.after = '';
      break;
    }
    for (const { execution_id: executionId } of page) {
      round.described++;
      cursor.after = executionId;
      if (await executionStillRuns(options.temporal, executionId)) continue;
      round.ofClosedExecutions += await forgetExecutionWaits(options.orm.em.fork(), executionId);
    }
  }
  if (cursor.after !== '') round.more = true;
  return round;
}
