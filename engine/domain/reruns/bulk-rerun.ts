// Re-runs every closed execution a filter matches, one after the other at the
// engine's re-run pace (rerun-pacer.ts). The matches are read in full before
// the first start, so the re-runs a bulk starts never match it themselves; a
// dry run lists them and starts nothing. More matches than the request's
// maximum refuse the whole request, so a filter that is wider than meant
// starts nothing at all; so does a listing that could not be read to its end
// (a company whose name holds a quote: company-listing.ts). A match the
// caller may not re-run as asked (a doNotLogPayload execution on another
// version, for a non-admin: rerun-execution.ts) is skipped with the reason.
import type { RerunExecutionsRequest } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { EngineError, FailedPreconditionError, InvalidArgumentError, UnavailableError } from '../../errors.ts';
import { summaryMessage } from '../executions/execution-reads.ts';
import type { RerunPacer } from './rerun-pacer.ts';
import { rerunExecution, type RerunCaller, type RerunDeps, type RerunResult } from './rerun-execution.ts';
import { needsExactCompanyCheck, rerunQuery } from '../executions/visibility-query.ts';
import { companyExecutions, pageSizeFor, scanBound } from '../executions/company-listing.ts';
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
  caller: RerunCaller,
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
  const want = max + 1;
  const { found, partial } = await companyExecutions(
    deps.temporal.workflow.list({ query, pageSize: pageSizeFor(request.company, want) }),
    request.company,
    want,
  );
  if (partial) {
    throw new FailedPreconditionError(
      `Company "${request.company}" has a quote or backslash in its name, which Temporal's visibility store cannot match: flowhook reads the executions of ` +
        `companies whose names start like it, keeps its own, and stopped after ${scanBound(request.company, want)} without reaching the end. Narrow the filter (--since/--until, --activity) so that fewer match`,
    );
  }
  // Counting a prefix query would count other companies too: then "more than max" is all that is known.
  const matched =
    found.length > max && !prefixOnly ? Number((await deps.temporal.workflow.count(query)).count) : found.length;
  if (request.dryRun) return { matched, executions: found.slice(0, max).map(summaryMessage), started: [], skipped: [] };
  if (found.length > max) {
    const many = prefixOnly
      ? `More than ${max} executions match`
      : `${matched} executions match, more than the ${max} allowed at once`;
    throw new FailedPreconditionError(
      `${many}: narrow the filter (--since/--until) or raise --max (at most ${BULK_MAX})`,
    );
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
      started.push(await rerunExecution(deps, caller, info.workflowId, request.sameVersion));
    } catch (error) {
      // A domain refusal (version deleted, flow unpublished) skips one; Temporal going away stops the rest.
      if (!(error instanceof EngineError) || error instanceof UnavailableError) {
        const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
        for (const rest of found.slice(index))
          skipped.push({ originalExecutionId: rest.workflowId, reason: `not started: ${reason}` });
        break;
      }
      skipped.push({ originalExecutionId: info.workflowId, reason: error.message });
    }
  }
  deps.logger.info(
    {
      serviceAccount: caller.account.name,
      company: request.company,
      matched,
      started: started.length,
      skipped: skipped.length,
    },
    'bulk re-run finished',
  );
  return { matched, executions: found.map(summaryMessage), started, skipped };
}
