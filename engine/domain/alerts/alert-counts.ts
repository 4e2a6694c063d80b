// Counts what a rule watches in its window, now:
//   execution-failed  flow executions of the company (or of its flow) that ended Failed or
//                     TimedOut in the window, from Temporal's visibility store (every engine's
//                     work; a Fail step and a failed step both end their execution as Failed)
//   calls-refused     refused calls in the delivery log (`sum(count)`: a summary row stands for
//                     the calls it counted), of one refusal reason when the rule names one
//   sync-timeout      sync calls answered by the sync timeout, from the delivery log
//   backlog           executions of the company (or its flow) still running after the window:
//                     waiting at a flow-control gate, paused, or stuck
//   no-worker         1 when no worker polled the task queue within the window (at least
//                     POLLER_SEEN_WITHIN_MS: a live worker's long poll renews its mark about once
//                     a minute), else 0
// Delivery rows are counted against the database's clock, the rows' own.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { POLLER_SEEN_WITHIN_MS, workflowPollers } from '../../infrastructure/temporal/task-queue-pollers.ts';
import type { AlertRule } from '../../infrastructure/storage/entities.ts';
import { companyClause, flowExecutionsQuery, needsExactCompanyCheck, quote } from '../executions/visibility-query.ts';
import { COMPANY_KEY } from '../../infrastructure/temporal/search-attributes.ts';

export interface AlertCountDeps {
  temporal: Client;
  taskQueue: string;
  namespace: string;
}

/** A counted rule: the company by name, as the delivery log and the search attributes hold it. */
export type CountedRule = Pick<AlertRule, 'condition' | 'flow' | 'reason' | 'windowSeconds'> & { companyName: string };

export async function countAlert(
  deps: AlertCountDeps,
  em: EntityManager,
  rule: CountedRule,
  now = new Date(),
): Promise<number> {
  const since = new Date(now.getTime() - rule.windowSeconds * 1000);
  switch (rule.condition) {
    case 'execution-failed':
      return countExecutions(deps, rule, [
        `ExecutionStatus IN ('Failed', 'TimedOut')`,
        `CloseTime >= ${quote(since.toISOString())}`,
      ]);
    case 'backlog':
      return countExecutions(deps, rule, [`ExecutionStatus = 'Running'`, `StartTime < ${quote(since.toISOString())}`]);
    case 'calls-refused':
      return countDeliveries(
        em,
        rule,
        `outcome = 'refused'${rule.reason ? ' and reason = ?' : ''}`,
        rule.reason ? [rule.reason] : [],
      );
    case 'sync-timeout':
      return countDeliveries(em, rule, `answer = 'sync-timeout'`, []);
    case 'no-worker':
      return (await livePollers(deps, rule.windowSeconds * 1000, now)) === 0 ? 1 : 0;
    default:
      return 0;
  }
}

/** At most this many executions are listed for a company whose name visibility cannot match exactly. */
const MAX_LISTED = 1000;

async function countExecutions(deps: AlertCountDeps, rule: CountedRule, clauses: string[]): Promise<number> {
  const query = [
    ...flowExecutionsQuery(deps.taskQueue),
    companyClause(rule.companyName),
    ...(rule.flow ? [`FlowName = ${quote(rule.flow)}`] : []),
    ...clauses,
  ].join(' AND ');
  if (!needsExactCompanyCheck(rule.companyName)) return Number((await deps.temporal.workflow.count(query)).count);
  // A quote-holding name is selected by its prefix: only exact matches count.
  let count = 0;
  let listed = 0;
  for await (const execution of deps.temporal.workflow.list({ query })) {
    if (execution.typedSearchAttributes.get(COMPANY_KEY) === rule.companyName) count++;
    if (++listed >= MAX_LISTED) break;
  }
  return count;
}

async function countDeliveries(
  em: EntityManager,
  rule: CountedRule,
  condition: string,
  values: unknown[],
): Promise<number> {
  const rows = await em
    .getConnection()
    .execute<{ total: string | null }[]>(
      `select sum("count") as total from "delivery" where "company" = ? and ${condition} and "received_at" >= now() - make_interval(secs => ?)`,
      [rule.companyName, ...values, rule.windowSeconds],
    );
  return Number(rows[0]?.total ?? 0);
}

/** When each worker polling the workflow task queue was last seen (ms since the epoch). */
export async function pollerTimes(deps: AlertCountDeps): Promise<number[]> {
  const pollers = await workflowPollers(deps.temporal, deps, 10_000);
  return pollers.map((poller) => poller.lastSeen);
}

/** Whether a worker was seen within `withinMs` (never less than POLLER_SEEN_WITHIN_MS: a live long poll is renewed about once a minute). */
export function workerSeen(times: readonly number[], withinMs: number, now: Date): boolean {
  const within = Math.max(withinMs, POLLER_SEEN_WITHIN_MS);
  return times.some((time) => now.getTime() - time <= within);
}

async function livePollers(deps: AlertCountDeps, withinMs: number, now: Date): Promise<number> {
  return workerSeen(await pollerTimes(deps), withinMs, now) ? 1 : 0;
}
