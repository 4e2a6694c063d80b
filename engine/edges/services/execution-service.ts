// The ExecutionService Connect implementation: operators' view of executions,
// read from Temporal, and re-runs (rerun-execution.ts, bulk-rerun.ts). What a
// doNotLogPayload execution withholds — payload, step outputs, the bodies of
// its caller's answer — GetExecution never returns (its execution log notes
// are withheld by the workflow itself); RevealExecutionPayload returns it to
// admins, audited; a re-run reads it inside the engine.
import type { ServiceImpl } from '@connectrpc/connect';
import { WorkflowFailedError, type WorkflowExecutionDescription, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ExecutionStepSchema,
  type ExecutionService,
} from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import type { StepLogEntry } from '../../../flow/index.ts';
import { executionLogQuery } from '../../../flow/flow-messages.ts';
import { isWaitingToRun } from '../../domain/executions/waiting-to-run.ts';
import { InvalidArgumentError, UnavailableError } from '../../errors.ts';
import { serviceAccountOf } from '../../domain/callers/call-context.ts';
import { companyReach } from '../../domain/callers/company-reach.ts';
import { payloadReveals } from '../../domain/executions/execution-payload-reveal.ts';
import { RERUN_OF_MEMO } from '../../domain/executions/execution-start-options.ts';
import { RERUN_OF_KEY } from '../../infrastructure/temporal/search-attributes.ts';
import type { CallMinutes } from '../../domain/metrics/call-minutes.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import { companyExecutions, pageSizeFor } from '../../domain/executions/company-listing.ts';
import {
  callerAnswer,
  stepOutputs,
  stepOutputsWithin,
  temporalUiLink,
  withoutBodies,
} from '../../domain/executions/execution-details.ts';
import { executionOverview } from '../../domain/metrics/execution-overview.ts';
import { connectionSecretScrubber, scrubbed } from '../../domain/executions/output-secrets.ts';
import { rerunMatching } from '../../domain/reruns/bulk-rerun.ts';
import {
  describeFlowExecution,
  payloadWithheld,
  startInput,
  summaryMessage,
} from '../../domain/executions/execution-reads.ts';
import { createRerunPacer, DEFAULT_RERUNS_PER_SECOND, type RerunPacer } from '../../domain/reruns/rerun-pacer.ts';
import { rerunExecution, type RerunDeps } from '../../domain/reruns/rerun-execution.ts';
import {
  companyClause,
  executionStatusValue,
  filterClauses,
  flowExecutionsQuery,
  quote,
} from '../../domain/executions/visibility-query.ts';
import { keyLabels } from '../../domain/flow-control/coordinator-ids.ts';

export interface ExecutionDeps extends RerunDeps {
  /** The secret store's keys: step outputs are shown without the flow's connection secrets (output-secrets.ts). */
  keyring: SecretKeyring;
  /** Re-run starts per second in this engine process (FLOWHOOK_RERUN_PER_SECOND). */
  rerunsPerSecond?: number;
  /** The engine's one re-run pace, shared with delivery replays (server.ts). */
  rerunPacer?: RerunPacer;
  /** The Temporal Web UI as people open it (FLOWHOOK_TEMPORAL_UI_URL): each execution links there. */
  temporalUiUrl?: string;
  /** This engine's call figures by minute, for the overview (metrics/call-minutes.ts). */
  callMinutes?: CallMinutes;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
/** How many re-runs `execution show` links back to. */
const RERUNS_SHOWN = 20;
/** How long the execution page and a reveal wait for each query of an execution (its log, the caller's answer, step outputs). */
const QUERY_DEADLINE_MS = 15_000;

export function createExecutionService(deps: ExecutionDeps): ServiceImpl<typeof ExecutionService> {
  const { temporal } = deps;
  // One pace for every re-run and replay request this engine serves (rerun-pacer.ts).
  const pacer = deps.rerunPacer ?? createRerunPacer(deps.rerunsPerSecond ?? DEFAULT_RERUNS_PER_SECOND);
  return {
    async listExecutions(request) {
      const limit = request.limit === 0 ? DEFAULT_LIMIT : request.limit;
      if (limit < 1 || limit > MAX_LIMIT) throw new InvalidArgumentError(`limit: 1..${MAX_LIMIT}`);
      const filters = flowExecutionsQuery(deps.taskQueue);
      if (request.company) filters.push(companyClause(request.company));
      if (request.statuses.length > 0)
        filters.push(
          `ExecutionStatus IN (${[...new Set(request.statuses.map(executionStatusValue))].map(quote).join(', ')})`,
        );
      filters.push(
        ...filterClauses({
          ...request,
          // Every label the key can have (coordinator-ids.ts): shown as it is, or as `#…` in doNotLogPayload flows.
          keyLabels: request.key ? keyLabels(deps.idempotencyKey, request.key) : undefined,
          since: request.since && timestampDate(request.since),
          until: request.until && timestampDate(request.until),
        }),
      );
      const rows = temporal.workflow.list({
        query: filters.join(' AND '),
        pageSize: pageSizeFor(request.company, limit),
      });
      const { found, partial } = await companyExecutions(rows, request.company, limit);
      return { executions: found.map(summaryMessage), partial };
    },
    async getExecution(request, context) {
      // Its company is checked on the describe, before anything else of it is read (company-reach.ts).
      const { handle, description } = await describeFlowExecution(temporal, request.executionId, {
        reach: companyReach(context, 'viewer'),
      });
      const withheld = payloadWithheld(description);
      const execution = summaryMessage(description);
      // One at a time, each query of a closed execution waits for a worker to replay it: asked together, the page waits once.
      const started = startInput(temporal, handle.workflowId, description.runId);
      const [input, steps, answer, outputs, reruns] = await Promise.all([
        started,
        withinQueryDeadline(() => handle.query(executionLogQuery)).catch((error: unknown) => {
          // Still waiting at its flow-control gates (started with a delay): no step has run.
          if (isWaitingToRun(error)) return [];
          throw new UnavailableError(
            `the execution log needs a running worker to answer, and none did within ${QUERY_DEADLINE_MS / 1000} s`,
          );
        }),
        // A Respond step's body, or a late answer's, usually echoes the payload.
        callerAnswer(handle, execution.outcome === 'failed', withinQueryDeadline, started).then((answer) =>
          withheld ? withoutBodies(answer) : answer,
        ),
        withheld ? [] : stepOutputs(handle, withinQueryDeadline),
        rerunsOf(request.executionId),
      ]);
      return scrubbed(
        {
          execution,
          steps: steps.map(stepMessage),
          payloadJson: withheld ? '' : (input?.payloadJson ?? ''),
          payloadWithheld: withheld,
          caller: input?.caller ?? '',
          rerunOf: rerunOf(description),
          reruns,
          answer,
          stepOutputs: outputs,
          temporalUiUrl: temporalUiLink(
            deps.temporalUiUrl,
            temporal.options.namespace,
            handle.workflowId,
            description.runId,
          ),
        },
        await connectionSecretScrubber(deps, input),
      );
    },
    async revealExecutionPayload(request) {
      const { handle, description } = await flowExecution(request.executionId, request.company);
      const started = startInput(temporal, handle.workflowId, description.runId);
      // Every question has the page's deadline: a running execution has no failure to wait for, and no worker answering is an error.
      const [input, outputs, reason, answer] = await Promise.all([
        started,
        stepOutputsWithin(handle, withinQueryDeadline, QUERY_DEADLINE_MS),
        description.status.name === 'RUNNING' ? '' : withinQueryDeadline(() => failureReason(handle)),
        callerAnswer(handle, summaryMessage(description).outcome === 'failed', withinQueryDeadline, started),
      ]);
      return scrubbed(
        { payloadJson: input?.payloadJson ?? '', stepOutputs: outputs, failureReason: reason, answer },
        await connectionSecretScrubber(deps, input),
      );
    },
    async getExecutionOverview(request) {
      return executionOverview(deps, request.company);
    },
    async rerunExecution(request, context) {
      if (!request.executionId) throw new InvalidArgumentError('execution id is required');
      const caller = { account: serviceAccountOf(context), reveals: payloadReveals(deps.orm, context) };
      // The console authorizes a re-run by the company it names: it must be the execution's.
      if (request.company) await flowExecution(request.executionId, request.company);
      await pacer.turn(context.signal);
      return { rerun: await rerunExecution(deps, caller, request.executionId, request.sameVersion) };
    },
    async rerunExecutions(request, context) {
      const caller = { account: serviceAccountOf(context), reveals: payloadReveals(deps.orm, context) };
      return rerunMatching({ ...deps, pacer }, caller, request, context.signal);
    },
  };

  /** A flow execution by id (of `company`, when given), or NOT_FOUND: another company's reads as unknown. */
  // A query is answered by a worker replaying the execution; when none answers (all busy, or Temporal's
  // dispatch to a worker's sticky queue waits for its timeout first) the page must not wait on it for good.
  function withinQueryDeadline<T>(ask: () => Promise<T>): Promise<T> {
    return temporal.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, ask);
  }

  function flowExecution(executionId: string, company?: string) {
    return describeFlowExecution(temporal, executionId, { company });
  }

  /** The re-runs of an execution, found by their `RerunOf` search attribute (visibility lags a moment behind a start). */
  async function rerunsOf(executionId: string): Promise<string[]> {
    if (!deps.useSearchAttributes()) return [];
    const ids: string[] = [];
    const query = [...flowExecutionsQuery(deps.taskQueue), `${RERUN_OF_KEY.name} = ${quote(executionId)}`].join(
      ' AND ',
    );
    for await (const info of temporal.workflow.list({ query, pageSize: RERUNS_SHOWN })) {
      ids.push(info.workflowId);
      if (ids.length >= RERUNS_SHOWN) break;
    }
    return ids;
  }
}

/** Why a failed execution failed: doNotLogPayload flows keep the reason in the (encrypted) failure details only. */
async function failureReason(handle: WorkflowHandle): Promise<string> {
  try {
    await handle.result();
    return '';
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (!(cause instanceof ApplicationFailure)) return cause?.message ?? '';
    const detail = cause.details?.[0];
    return typeof detail === 'string' ? detail : cause.message;
  }
}

/** The memo holds it even where the cluster lacks the `RerunOf` search attribute. */
function rerunOf(description: WorkflowExecutionDescription): string {
  const memo = description.memo?.[RERUN_OF_MEMO];
  return typeof memo === 'string' ? memo : (description.typedSearchAttributes.get(RERUN_OF_KEY) ?? '');
}

function stepMessage(step: StepLogEntry) {
  return create(ExecutionStepSchema, {
    path: step.path,
    type: step.type,
    name: step.name,
    description: step.description,
    status: step.status,
    startedAt: timestampFromDate(new Date(step.startedAt)),
    finishedAt: timestampFromDate(new Date(step.finishedAt)),
    note: step.note ?? '',
  });
}
