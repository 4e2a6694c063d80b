// The ExecutionService Connect implementation: operators' read-only view of
// executions, read from Temporal. The payload of a doNotLogPayload execution is
// never returned (its execution log notes are withheld by the workflow itself).
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription, type WorkflowExecutionInfo } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import {
  ExecutionStepSchema,
  ExecutionSummarySchema,
  type ExecutionService,
} from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FLOW_WORKFLOW_TYPE, type FlowExecutionInput, type StepLogEntry } from '../../workflows/shared/index.ts';
import { DO_NOT_LOG_PAYLOAD_MEMO } from '../../workflows/shared/payload-converter.ts';
import { InvalidArgumentError, NotFoundError, UnavailableError } from '../errors.ts';
import { COMPANY_KEY, FLOW_ACTIVITY_KEY, FLOW_NAME_KEY, FLOW_OUTCOME_KEY, FLOW_OUTCOMES, FLOW_VERSION_KEY } from '../temporal/search-attributes.ts';

export interface ExecutionDeps {
  temporal: Client;
  taskQueue: string;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

export function createExecutionService(deps: ExecutionDeps): ServiceImpl<typeof ExecutionService> {
  const { temporal } = deps;
  return {
    async listExecutions(request) {
      const limit = request.limit === 0 ? DEFAULT_LIMIT : request.limit;
      if (limit < 1 || limit > MAX_LIMIT) throw new InvalidArgumentError(`limit: 1..${MAX_LIMIT}`);
      const filters = [`WorkflowType = ${quote(FLOW_WORKFLOW_TYPE)}`, `TaskQueue = ${quote(deps.taskQueue)}`];
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
      const executions = [];
      for await (const info of temporal.workflow.list({ query: filters.join(' AND '), pageSize: limit })) {
        executions.push(summary(info));
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
      let steps: StepLogEntry[] = [];
      try {
        steps = await handle.query<StepLogEntry[]>('executionLog');
      } catch {
        throw new UnavailableError('the execution log needs a running worker to answer');
      }
      return {
        execution: summary(description),
        steps: steps.map(stepMessage),
        payloadJson: withheld ? '' : (input?.payloadJson ?? ''),
        payloadWithheld: withheld,
        caller: input?.caller ?? '',
      };
    },
  };
}

/** The workflow's input, read (and decoded, decrypted) from its first history event. */
async function startInput(temporal: Client, workflowId: string, runId: string): Promise<FlowExecutionInput | undefined> {
  const history = await temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  if (!payloads?.length) return undefined;
  return decodeFromPayloadsAtIndex<FlowExecutionInput>(temporal.options.loadedDataConverter, 0, payloads);
}

function summary(info: Pick<WorkflowExecutionInfo, 'workflowId' | 'typedSearchAttributes' | 'status' | 'startTime' | 'closeTime'>) {
  const attributes = info.typedSearchAttributes;
  return create(ExecutionSummarySchema, {
    executionId: info.workflowId,
    company: attributes.get(COMPANY_KEY) ?? '',
    activity: attributes.get(FLOW_ACTIVITY_KEY) ?? '',
    flowName: attributes.get(FLOW_NAME_KEY) ?? '',
    flowVersion: attributes.get(FLOW_VERSION_KEY) ?? 0,
    outcome: attributes.get(FLOW_OUTCOME_KEY) ?? '',
    status: info.status.name,
    startedAt: timestampFromDate(info.startTime),
    closedAt: info.closeTime ? timestampFromDate(info.closeTime) : undefined,
  });
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

/** A visibility-query string literal. */
function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
