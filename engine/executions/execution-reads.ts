// What the ExecutionService reads of one execution in Temporal: its summary
// row (search attributes) and the input it started with. The input is decoded
// with the engine's data converter, so a doNotLogPayload input is decrypted
// here, inside the engine, and nowhere else.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription, type WorkflowExecutionInfo } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { ExecutionSummarySchema } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FLOW_WORKFLOW_TYPE, type FlowExecutionInput } from '../../workflows/shared/index.ts';
import { InvalidArgumentError, NotFoundError } from '../errors.ts';
import { COMPANY_KEY, FLOW_ACTIVITY_KEY, FLOW_CALLER_KEY, FLOW_KEY, FLOW_NAME_KEY, FLOW_OUTCOME_KEY, FLOW_VERSION_KEY, FLOW_WAIT_KEY } from '../temporal/search-attributes.ts';

/**
 * One of flowhook's flow executions by id, or NOT_FOUND: another application's
 * workflow on the namespace (or on another task queue), or — when `company` is
 * given — another company's execution, reads as unknown.
 */
export async function describeFlowExecution(temporal: Client, executionId: string, scope: { taskQueue?: string; company?: string } = {}) {
  if (!executionId) throw new InvalidArgumentError('execution id is required');
  const handle = temporal.workflow.getHandle(executionId);
  let description: WorkflowExecutionDescription;
  try {
    description = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new NotFoundError(`Execution "${executionId}" does not exist`);
    throw error;
  }
  const ours = description.type === FLOW_WORKFLOW_TYPE && (scope.taskQueue === undefined || description.taskQueue === scope.taskQueue);
  if (!ours || (scope.company !== undefined && description.typedSearchAttributes.get(COMPANY_KEY) !== scope.company)) {
    throw new NotFoundError(`Execution "${executionId}" does not exist`);
  }
  return { handle, description };
}

/** The workflow's input, read (and decoded, decrypted) from its first history event. */
export async function startInput(temporal: Client, workflowId: string, runId: string): Promise<FlowExecutionInput | undefined> {
  const history = await temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  if (!payloads?.length) return undefined;
  // With the execution's context: the codec refuses an input bound to another execution.
  return decodeFromPayloadsAtIndex<FlowExecutionInput>(temporal.options.loadedDataConverter, 0, payloads, { type: 'workflow', namespace: temporal.options.namespace, workflowId });
}

export function summaryMessage(info: Pick<WorkflowExecutionInfo, 'workflowId' | 'typedSearchAttributes' | 'status' | 'startTime' | 'closeTime'>) {
  const attributes = info.typedSearchAttributes;
  return create(ExecutionSummarySchema, {
    executionId: info.workflowId,
    company: attributes.get(COMPANY_KEY) ?? '',
    activity: attributes.get(FLOW_ACTIVITY_KEY) ?? '',
    flowName: attributes.get(FLOW_NAME_KEY) ?? '',
    flowVersion: attributes.get(FLOW_VERSION_KEY) ?? 0,
    outcome: attributes.get(FLOW_OUTCOME_KEY) ?? '',
    caller: attributes.get(FLOW_CALLER_KEY) ?? '',
    keys: attributes.get(FLOW_KEY) ?? [],
    waitedMs: BigInt(attributes.get(FLOW_WAIT_KEY) ?? 0),
    status: info.status.name,
    startedAt: timestampFromDate(info.startTime),
    closedAt: info.closeTime ? timestampFromDate(info.closeTime) : undefined,
  });
}
