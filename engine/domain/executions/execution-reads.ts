// What the ExecutionService reads of one execution in Temporal: its summary
// row (search attributes) and the input it started with. The input is decoded
// with the engine's data converter, so a doNotLogPayload input is decrypted
// here, inside the engine, and nowhere else.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { ExecutionSummarySchema } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FLOW_WORKFLOW_TYPE, type FlowExecutionInput } from '../../../flow/index.ts';
import { DO_NOT_LOG_PAYLOAD_MEMO } from '../../../flow/payload-converter.ts';
import { InvalidArgumentError, NotFoundError } from '../../errors.ts';
import type { CompanyReach } from '../callers/company-reach.ts';
// The search attributes an execution carries, by their keys' names (flow/search-attribute-keys.ts).
import * as keys from '../../../flow/search-attribute-keys.ts';

/**
 * One of flowhook's flow executions by id, or NOT_FOUND: another application's
 * workflow on the namespace (or on another task queue), or — when `company` is
 * given, or the company is outside the caller's `reach` — another company's
 * execution, reads as unknown. Only a describe (its company search attribute)
 * happens before that check: nothing of the execution is read for a caller
 * who may not see it, and the answer is the same as for an id that never was.
 */
export async function describeFlowExecution(
  temporal: Client,
  executionId: string,
  scope: { taskQueue?: string; company?: string; reach?: CompanyReach } = {},
) {
  if (!executionId) throw new InvalidArgumentError('execution id is required');
  const handle = temporal.workflow.getHandle(executionId);
  let description: WorkflowExecutionDescription;
  try {
    description = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw executionNotFound(executionId);
    throw error;
  }
  const ours =
    description.type === FLOW_WORKFLOW_TYPE &&
    (scope.taskQueue === undefined || description.taskQueue === scope.taskQueue);
  const company = description.typedSearchAttributes.get(keys.COMPANY_KEY);
  if (
    !ours ||
    (scope.company !== undefined && company !== scope.company) ||
    (scope.reach !== undefined && !scope.reach(company ?? ''))
  ) {
    throw executionNotFound(executionId);
  }
  return { handle, description };
}

/** The one answer for an execution that does not exist, is not flowhook's, or is not the caller's to see. */
export function executionNotFound(executionId: string): NotFoundError {
  return new NotFoundError(`Execution "${executionId}" does not exist`);
}

/** The workflow's input, read (and decoded, decrypted) from its first history event. */
export async function startInput(
  temporal: Client,
  workflowId: string,
  runId: string,
): Promise<FlowExecutionInput | undefined> {
  const history = await temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  if (!payloads?.length) return undefined;
  // With the execution's context: the codec refuses an input bound to another execution.
  return decodeFromPayloadsAtIndex<FlowExecutionInput>(temporal.options.loadedDataConverter, 0, payloads, {
    type: 'workflow',
    namespace: temporal.options.namespace,
    workflowId,
  });
}

/** Whether the execution's payload is withheld (doNotLogPayload): the engine marks it in the memo at start. */
export function payloadWithheld(info: Pick<WorkflowExecutionInfo, 'memo'>): boolean {
  return info.memo?.[DO_NOT_LOG_PAYLOAD_MEMO] === true;
}

export function summaryMessage(
  info: Pick<
    WorkflowExecutionInfo,
    'workflowId' | 'typedSearchAttributes' | 'status' | 'startTime' | 'closeTime' | 'memo'
  >,
) {
  const attributes = info.typedSearchAttributes;
  return create(ExecutionSummarySchema, {
    executionId: info.workflowId,
    company: attributes.get(keys.COMPANY_KEY) ?? '',
    activity: attributes.get(keys.FLOW_ACTIVITY_KEY) ?? '',
    flowName: attributes.get(keys.FLOW_NAME_KEY) ?? '',
    flowVersion: attributes.get(keys.FLOW_VERSION_KEY) ?? 0,
    outcome: attributes.get(keys.FLOW_OUTCOME_KEY) ?? '',
    caller: attributes.get(keys.FLOW_CALLER_KEY) ?? '',
    keys: attributes.get(keys.FLOW_KEY) ?? [],
    waitedMs: BigInt(attributes.get(keys.FLOW_WAIT_KEY) ?? 0),
    status: info.status.name,
    startedAt: timestampFromDate(info.startTime),
    closedAt: info.closeTime ? timestampFromDate(info.closeTime) : undefined,
    payloadWithheld: payloadWithheld(info),
  });
}
