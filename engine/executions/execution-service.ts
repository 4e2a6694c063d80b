// The ExecutionService Connect implementation: operators' view of executions,
// read from Temporal, and re-runs (rerun-execution.ts, bulk-rerun.ts). The
// payload of a doNotLogPayload execution is never returned (its execution log
// notes are withheld by the workflow itself); a re-run reads it inside the engine.
import type { ServiceImpl } from '@connectrpc/connect';
import { WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ExecutionStepSchema, type ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FLOW_WORKFLOW_TYPE, type StepLogEntry } from '../../workflows/shared/index.ts';
import { executionLogQuery } from '../../workflows/shared/flow-messages.ts';
import { DO_NOT_LOG_PAYLOAD_MEMO } from '../../workflows/shared/payload-converter.ts';
import { InvalidArgumentError, NotFoundError, UnavailableError } from '../errors.ts';
import { serviceAccountOf } from '../rpc/service-account-gate.ts';
import { RERUN_OF_MEMO } from '../temporal/execution-start-options.ts';
import { FLOW_OUTCOMES, RERUN_OF_KEY } from '../temporal/search-attributes.ts';
import { rerunMatching } from './bulk-rerun.ts';
import { startInput, summaryMessage } from './execution-reads.ts';
import { createRerunPacer, DEFAULT_RERUNS_PER_SECOND } from './rerun-pacer.ts';
import { rerunExecution, type RerunDeps } from './rerun-execution.ts';
import { flowExecutionsQuery, quote } from './visibility-query.ts';
import { keyLabels } from '../flow-control/coordinator-ids.ts';

export interface ExecutionDeps extends RerunDeps {
  /** Re-run starts per second in this engine process (FLOWHOOK_RERUN_PER_SECOND). */
  rerunsPerSecond?: number;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
/** How many re-runs `execution show` links back to. */
const RERUNS_SHOWN = 20;

export function createExecutionService(deps: ExecutionDeps): ServiceImpl<typeof ExecutionService> {
  const { temporal } = deps;
  // One pace for every re-run request this engine serves (rerun-pacer.ts).
  const pacer = createRerunPacer(deps.rerunsPerSecond ?? DEFAULT_RERUNS_PER_SECOND);
  return {
    async listExecutions(request) {
      const limit = request.limit === 0 ? DEFAULT_LIMIT : request.limit;
      if (limit < 1 || limit > MAX_LIMIT) throw new InvalidArgumentError(`limit: 1..${MAX_LIMIT}`);
      const filters = flowExecutionsQuery(deps.taskQueue);
      if (request.company) filters.push(`Company = ${quote(request.company)}`);
      if (request.activity) filters.push(`FlowActivity = ${quote(request.activity.toLowerCase())}`);
      if (request.flowName) filters.push(`FlowName = ${quote(request.flowName)}`);
      if (request.flowVersion < 0) throw new InvalidArgumentError('flow version: a positive number');
      if (request.flowVersion > 0) filters.push(`FlowVersion = ${request.flowVersion}`);
      if (request.outcome) {
        const outcome = request.outcome.trim().toLowerCase().replace(/[-_]/g, ' ');
        if (!(FLOW_OUTCOMES as readonly string[]).includes(outcome)) throw new InvalidArgumentError(`outcome: one of ${FLOW_OUTCOMES.join(', ')}; got "${request.outcome}"`);
        filters.push(`FlowOutcome = ${quote(outcome)}`);
      }
      // Every label the key can have (coordinator-ids.ts): shown as it is, or as `#…` in doNotLogPayload flows.
      if (request.key) filters.push(`FlowKey IN (${keyLabels(deps.idempotencyKey, request.key).map(quote).join(', ')})`);
      const executions = [];
      for await (const info of temporal.workflow.list({ query: filters.join(' AND '), pageSize: limit })) {
        executions.push(summaryMessage(info));
        if (executions.length >= limit) break;
      }
      return { executions };
    },
    async getExecution(request) {
      if (!request.executionId) throw new InvalidArgumentError('execution id is required');
      const handle = temporal.workflow.getHandle(request.executionId);
      let description: WorkflowExecutionDescription;
      try {
        description = await handle.describe();
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) throw new NotFoundError(`Execution "${request.executionId}" does not exist`);
        throw error;
      }
      if (description.type !== FLOW_WORKFLOW_TYPE) throw new NotFoundError(`Execution "${request.executionId}" does not exist`);
      const withheld = description.memo?.[DO_NOT_LOG_PAYLOAD_MEMO] === true;
      const input = await startInput(temporal, handle.workflowId, description.runId);
      let steps: StepLogEntry[];
      try {
        steps = await handle.query(executionLogQuery);
      } catch {
        throw new UnavailableError('the execution log needs a running worker to answer');
      }
      return {
        execution: summaryMessage(description),
        steps: steps.map(stepMessage),
        payloadJson: withheld ? '' : (input?.payloadJson ?? ''),
        payloadWithheld: withheld,
        caller: input?.caller ?? '',
        rerunOf: rerunOf(description),
        reruns: await rerunsOf(request.executionId),
      };
    },
    async rerunExecution(request, context) {
      if (!request.executionId) throw new InvalidArgumentError('execution id is required');
      const account = serviceAccountOf(context);
      await pacer.turn(context.signal);
      return { rerun: await rerunExecution(deps, account, request.executionId, request.sameVersion) };
    },
    async rerunExecutions(request, context) {
      return rerunMatching({ ...deps, pacer }, serviceAccountOf(context), request, context.signal);
    },
  };

  /** The re-runs of an execution, found by their `RerunOf` search attribute (visibility lags a moment behind a start). */
  async function rerunsOf(executionId: string): Promise<string[]> {
    if (!deps.useSearchAttributes()) return [];
    const ids: string[] = [];
    const query = [...flowExecutionsQuery(deps.taskQueue), `${RERUN_OF_KEY.name} = ${quote(executionId)}`].join(' AND ');
    for await (const info of temporal.workflow.list({ query, pageSize: RERUNS_SHOWN })) {
      ids.push(info.workflowId);
      if (ids.length >= RERUNS_SHOWN) break;
    }
    return ids;
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
