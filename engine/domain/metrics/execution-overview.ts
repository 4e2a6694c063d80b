// GetExecutionOverview: one company's last hour. Calls per minute by outcome
// and answer times come from this engine's metrics (metrics/call-minutes.ts);
// failed and running executions from Temporal's visibility store, which every
// engine of a deployment shares, so those two count every engine's work.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Client } from '@temporalio/client';
import {
  GetExecutionOverviewResponseSchema,
  type GetExecutionOverviewResponse,
} from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { InvalidArgumentError } from '../../errors.ts';
import { OVERVIEW_MINUTES, type CallMinutes } from './call-minutes.ts';
import { companyClause, flowExecutionsQuery, needsExactCompanyCheck, quote } from '../executions/visibility-query.ts';

export interface OverviewDeps {
  temporal: Client;
  taskQueue: string;
  /** Absent in engines built without metrics (tests of other parts): the call figures are then zero. */
  callMinutes?: CallMinutes;
}

export async function executionOverview(
  deps: OverviewDeps,
  company: string,
  now = new Date(),
): Promise<GetExecutionOverviewResponse> {
  if (!company) throw new InvalidArgumentError('company is required');
  const since = new Date(now.getTime() - OVERVIEW_MINUTES * 60_000);
  const base = [...flowExecutionsQuery(deps.taskQueue), companyClause(company)];
  const count = async (clauses: string[]) => {
    // A quote-holding name is selected by prefix, which may count other companies: no figure rather than a wrong one.
    if (needsExactCompanyCheck(company)) return 0n;
    return BigInt((await deps.temporal.workflow.count([...base, ...clauses].join(' AND '))).count);
  };
  const [failed, running, calls] = await Promise.all([
    count([`ExecutionStatus IN ('Failed', 'TimedOut')`, `CloseTime >= ${quote(since.toISOString())}`]),
    count([`ExecutionStatus = 'Running'`]),
    deps.callMinutes?.overview(company),
  ]);
  return create(GetExecutionOverviewResponseSchema, {
    minutes: (calls?.minutes ?? []).map(({ minute, counts }) => ({
      minute: timestampFromDate(minute),
      counts: Object.entries(counts).map(([outcome, value]) => ({ outcome, count: BigInt(value) })),
    })),
    answerP50Seconds: calls?.p50Seconds ?? 0,
    answerP95Seconds: calls?.p95Seconds ?? 0,
    answeredCalls: BigInt(calls?.answeredCalls ?? 0),
    countingSince: calls ? timestampFromDate(calls.countingSince) : undefined,
    failedExecutions: failed,
    runningExecutions: running,
    since: timestampFromDate(since),
  });
}
