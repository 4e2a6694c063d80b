// What the ExecutionService reads of one execution in Temporal: its summary
// row (search attributes) and the input it started with. The input is decoded
// with the engine's data converter, so a doNotLogPayload input is decrypted
// here, inside the engine, and nowhere else.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { ExecutionSummarySchema } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import type { FlowExecutionInput } from '../../workflows/shared/index.ts';
import { COMPANY_KEY, FLOW_ACTIVITY_KEY, FLOW_KEY, FLOW_NAME_KEY, FLOW_OUTCOME_KEY, FLOW_VERSION_KEY, FLOW_WAIT_KEY } from '../temporal/search-attributes.ts';

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
    keys: attributes.get(FLOW_KEY) ?? [],
    waitedMs: BigInt(attributes.get(FLOW_WAIT_KEY) ?? 0),
    status: info.status.name,
    startedAt: timestampFromDate(info.startTime),
    closedAt: info.closeTime ? timestampFromDate(info.closeTime) : undefined,
  });
}
