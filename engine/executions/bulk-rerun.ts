// Re-runs every closed execution a filter matches, one after the other at the
// engine's re-run pace (rerun-pacer.ts). The matches are read in full before
// the first start, so the re-runs a bulk starts never match it themselves; a
// dry run lists them and starts nothing. More matches than the request's
// maximum refuse the whole request, so a filter that is wider than meant
// starts nothing at all.
import type { RerunExecutionsRequest } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { EngineError, FailedPreconditionError, InvalidArgumentError, UnavailableError } from '../errors.ts';
import type { ServiceAccountIdentity } from '../security/service-account-tokens.ts';
import { summaryMessage } from './execution-reads.ts';
import type { RerunPacer } from './rerun-pacer.ts';
import { rerunExecution, type RerunDeps, type RerunResult } from './rerun-execution.ts';
import { needsExactCompanyCheck, rerunQuery } from './visibility-query.ts';
import { COMPANY_KEY } from '../temporal/search-attributes.ts';
import { keyLabels } from '../flow-control/coordinator-ids.ts';

export const DEFAULT_BULK_MAX = 100;
export const BULK_MAX = 1000;

export interface BulkRerunResult {
  matched: number;
  executions: ReturnType<typeof summaryMessage>[];
  started: RerunResult[];
  skipped: { originalExecutionId: string; reason: string }[];
}

export async function rerunMatching(
  deps: RerunDeps & { pacer: RerunPacer },
  account: ServiceAccountIdentity,
  request: RerunExecutionsRequest,
  signal: AbortSignal,
): Promise<BulkRerunResult> {
  const max = request.maxCount === 0 ? DEFAULT_BULK_MAX : request.maxCount;
  if (max < 1 || max > BULK_MAX) throw new InvalidArgumentError(`max count: 1..${BULK_MAX}`);
  const query = rerunQuery(deps.taskQueue, {
    company: request.company,
    activity: request.activity || undefined,
    flowName: request.flowName || undefined,
    flowVersion: request.flowVersion,
    outcome: request.outcome || undefined,
    caller: request.caller || undefined,
    keyLabels: request.key ? keyLabels(deps.idempotencyKey, request.key) : undefined,
    statuses: request.statuses,
    since: request.since && timestampDate(request.since),
    until: request.until && timestampDate(request.until),
  });
  const prefixOnly = needsExactCompanyCheck(request.company);
  // One more than allowed tells "too many" without reading them all.
  const found: WorkflowExecutionInfo[] = [];
  for await (const info of deps.temporal.workflow.list({ query, pageSize: Math.min(max + 1, 1000) })) {
    if (prefixOnly && info.typedSearchAttributes.get(COMPANY_KEY) !== request.company) continue;
    found.push(info);
    if (found.length > max) break;
  }
  // Counting a prefix query would count other companies too: then "more than max" is all that is known.
  const matched = found.length > max && !prefixOnly ? Number((await deps.temporal.workflow.count(query)).count) : found.length;
  if (request.dryRun) return { matched, executions: found.slice(0, max).map(summaryMessage), started: [], skipped: [] };
  if (found.length > max) {
    const many = prefixOnly ? `More than ${max} executions match` : `${matched} executions match, more than the ${max} allowed at once`;
    throw new FailedPreconditionError(`${many}: narrow the filter (--since/--until) or raise --max (at most ${BULK_MAX})`);
  }

  const started: RerunResult[] = [];
  const skipped: BulkRerunResult['skipped'] = [];
  for (const [index, info] of found.entries()) {
    try {
      await deps.pacer.turn(signal);
    } catch {
      // The caller went away: what started is started (and logged); nothing more starts.
      break;
    }
    try {
      started.push(await rerunExecution(deps, account, info.workflowId, request.sameVersion));
    } catch (error) {
      // A domain refusal (version deleted, flow unpublished) skips one; Temporal going away stops the rest.
      if (!(error instanceof EngineError) || error instanceof UnavailableError) {
        const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
        for (const rest of found.slice(index)) skipped.push({ originalExecutionId: rest.workflowId, reason: `not started: ${reason}` });
        break;
      }
      skipped.push({ originalExecutionId: info.workflowId, reason: error.message });
    }
  }
  deps.logger.info({ serviceAccount: account.name, company: request.company, matched, started: started.length, skipped: skipped.length }, 'bulk re-run finished');
  return { matched, executions: found.map(summaryMessage), started, skipped };
}
