// What the console's execution page shows besides the execution log: the
// answer the caller got (and a respond step's late answer), what each named
// step put out, and where the same execution is in the Temporal Web UI. Read
// with the workflow's queries, which replay a closed execution on a worker.
import { create } from '@bufbuild/protobuf';
import type { WorkflowHandle } from '@temporalio/client';
import { CallerAnswerSchema, StepOutputSchema, type CallerAnswer, type StepOutput } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import type { FlowAnswer, FlowExecutionInput } from '../../workflows/shared/index.ts';
import { answerWhileWaiting, isWaitingToRun } from '../temporal/waiting-to-run.ts';
import { flowAnswerQuery, stepOutputsQuery } from '../../workflows/shared/flow-messages.ts';

/** Runs one question to Temporal under a deadline (Connection.withDeadline), so a page never waits on it for long. */
export type Within = <T>(ask: () => Promise<T>) => Promise<T>;

/**
 * The caller's answer, as the flow's sync window decided it; undefined while a
 * caller still waits. `failed`: the flow failed inside the caller's window (the
 * FlowOutcome search attribute says so), and the caller got a 500.
 */
export async function callerAnswer(
  handle: WorkflowHandle,
  failedInWindow: boolean,
  within: Within = (ask) => ask(),
  input?: Promise<FlowExecutionInput | undefined>,
): Promise<CallerAnswer | undefined> {
  let answer: FlowAnswer;
  try {
    answer = await within(() => handle.query(flowAnswerQuery));
  } catch (error) {
    // Still waiting at its flow-control gates, its caller got the default answer (waiting-to-run.ts); any
    // other failure — no worker answered, or the execution predates the query — leaves the answer unknown.
    const waiting = isWaitingToRun(error) ? await input : undefined;
    if (!waiting) return undefined;
    answer = answerWhileWaiting(waiting);
  }
  if (!answer.outcome) return undefined;
  // The facade's own error answer, not the flow's: its body is flowhook's, never the reason.
  if (failedInWindow) return create(CallerAnswerSchema, { outcome: 'FAILED', statusCode: 500 });
  const fallback = { statusCode: answer.defaultResponse.statusCode, contentType: answer.defaultResponse.contentType, body: '', defaultResponse: true };
  if (answer.answeredAfterTimeout && answer.response) return create(CallerAnswerSchema, { outcome: answer.outcome, ...fallback, lateAnswer: answer.response });
  return create(CallerAnswerSchema, { outcome: answer.outcome, ...(answer.response ? { ...answer.response, defaultResponse: false } : fallback) });
}

/** Each named step's output as JSON text, in the order the steps ran; [] when the worker cannot say. */
export async function stepOutputs(handle: WorkflowHandle, within: Within = (ask) => ask()): Promise<StepOutput[]> {
  let outputs: Record<string, unknown>;
  try {
    outputs = await within(() => handle.query(stepOutputsQuery));
  } catch {
    return [];
  }
  return Object.entries(outputs ?? {}).map(([name, output]) => create(StepOutputSchema, { name, outputJson: JSON.stringify(output ?? null, null, 2) }));
}

/** The execution's page in the Temporal Web UI (its history), or '' without a UI address. */
export function temporalUiLink(uiUrl: string | undefined, namespace: string, workflowId: string, runId: string): string {
  if (!uiUrl) return '';
  const base = uiUrl.replace(/\/+$/, '');
  return `${base}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`;
}
