// What the console's execution page shows besides the execution log: the
// answer the caller got (and a respond step's late answer), what each named
// step put out, and where the same execution is in the Temporal Web UI. Read
// with the workflow's queries, which replay a closed execution on a worker.
//
// Of a doNotLogPayload execution the page gets the answer without its bodies
// (a Respond step's body usually echoes the payload); RevealExecutionPayload
// gets them, and the step outputs, for admins (execution-service.ts).
import { clone, create } from '@bufbuild/protobuf';
import { isGrpcServiceError, type WorkflowHandle } from '@temporalio/client';
import {
  CallerAnswerSchema,
  StepOutputSchema,
  type CallerAnswer,
  type StepOutput,
} from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import type { FlowAnswer, FlowExecutionInput } from '../../../flow/index.ts';
import { answerWhileWaiting, isWaitingToRun } from './waiting-to-run.ts';
import { flowAnswerQuery, stepOutputsQuery } from '../../../flow/flow-messages.ts';
import { UnavailableError } from '../../errors.ts';

const GRPC_DEADLINE_EXCEEDED = 4;

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
  const fallback = {
    statusCode: answer.defaultResponse.statusCode,
    contentType: answer.defaultResponse.contentType,
    body: '',
    defaultResponse: true,
  };
  if (answer.answeredAfterTimeout && answer.response)
    return create(CallerAnswerSchema, { outcome: answer.outcome, ...fallback, lateAnswer: answer.response });
  return create(CallerAnswerSchema, {
    outcome: answer.outcome,
    ...(answer.response ? { ...answer.response, defaultResponse: false } : fallback),
  });
}

/** The answer with its body and its late answer's body emptied; status and content type stay. */
export function withoutBodies(answer: CallerAnswer | undefined): CallerAnswer | undefined {
  if (!answer) return undefined;
  const shown = clone(CallerAnswerSchema, answer);
  shown.body = '';
  if (shown.lateAnswer) shown.lateAnswer.body = '';
  return shown;
}

/** Each named step's output as JSON text, in the order the steps ran; [] when the worker cannot say. */
export async function stepOutputs(handle: WorkflowHandle, within: Within = (ask) => ask()): Promise<StepOutput[]> {
  try {
    return outputMessages(await within(() => handle.query(stepOutputsQuery)));
  } catch {
    return [];
  }
}

/**
 * As stepOutputs, but no worker answering within the deadline is UNAVAILABLE, not "no outputs":
 * an admin who decrypts them must not take that silence for an execution without outputs.
 */
export async function stepOutputsWithin(
  handle: WorkflowHandle,
  within: Within,
  deadlineMs: number,
): Promise<StepOutput[]> {
  try {
    return outputMessages(await within(() => handle.query(stepOutputsQuery)));
  } catch (error) {
    if (pastDeadline(error))
      throw new UnavailableError(
        `the step outputs need a running worker to answer, and none did within ${deadlineMs / 1000} s; try again`,
      );
    // Waiting at its gates (no step ran yet), or a worker that predates the query.
    return [];
  }
}

function outputMessages(outputs: Record<string, unknown> | undefined): StepOutput[] {
  return Object.entries(outputs ?? {}).map(([name, output]) =>
    create(StepOutputSchema, { name, outputJson: JSON.stringify(output ?? null, null, 2) }),
  );
}

/** Whether Temporal gave up on a call at its deadline (Connection.withDeadline), here or in a cause. */
export function pastDeadline(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    current && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if (isGrpcServiceError(current) && current.code === GRPC_DEADLINE_EXCEEDED) return true;
  }
  return false;
}

/** The execution's page in the Temporal Web UI (its history), or '' without a UI address. */
export function temporalUiLink(
  uiUrl: string | undefined,
  namespace: string,
  workflowId: string,
  runId: string,
): string {
  if (!uiUrl) return '';
  const base = uiUrl.replace(/\/+$/, '');
  return `${base}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`;
}
