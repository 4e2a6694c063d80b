// An Instant-return execution that waits at its flow-control gates was
// started with a delay and has run no workflow task yet (engine/domain/flow-control/
// gate-entry.ts): Temporal refuses every query to it with FAILED_PRECONDITION.
// Its answer is known all the same — the caller got the trigger's default
// answer — and its input says whose it is, so the readers of an execution
// answer from the input instead of failing.
import { isGrpcServiceError } from '@temporalio/client';
import type { FlowAnswer, FlowExecutionInput } from '../../../flow/index.ts';

const GRPC_FAILED_PRECONDITION = 9;

/** Whether a query failed because the execution has not run its first workflow task yet. */
export function isWaitingToRun(error: unknown): boolean {
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
  return (
    isGrpcServiceError(cause) &&
    cause.code === GRPC_FAILED_PRECONDITION &&
    /not scheduled yet/i.test(cause.details ?? cause.message)
  );
}

/** The answer of an execution that waits at its gates: its caller got the trigger's default answer at once. */
export function answerWhileWaiting(input: FlowExecutionInput): FlowAnswer {
  return {
    company: input.company,
    caller: input.caller,
    answeredAfterTimeout: false,
    outcome: 'INSTANT_RETURN',
    defaultResponse: input.trigger.defaultResponse,
  };
}
