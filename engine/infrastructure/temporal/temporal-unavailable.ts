// What a caller is told when a call to Temporal fails for want of Temporal, not because of the call,
// and how an update that found its execution closed is told apart.
import {
  isGrpcDeadlineError,
  isGrpcServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { UnavailableError } from '../../errors.ts';

/** An error's first line, for a message or a log line: never a stack, nor the server's detail below it. */
export function firstLineOf(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}

/** Temporal did not answer in time (a deadline, an update no worker took up), or not at all: then why, in one line. */
export function temporalUnavailable(error: unknown): UnavailableError {
  if (isGrpcDeadlineError(error) || error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
    return new UnavailableError('Temporal did not answer in time (is a worker running?)');
  }
  return new UnavailableError(`Temporal is unavailable: ${firstLineOf(error)}`);
}

/** Temporal is unreachable or refused for want of itself (not a deadline): why, in one line. */
export function unavailable(error: unknown): UnavailableError {
  return new UnavailableError(`Temporal is unavailable: ${firstLineOf(error)}`);
}

const GRPC_NOT_FOUND = 5;

/** An update sent to an execution that has just closed. */
export function isWorkflowClosedError(error: unknown): boolean {
  return (
    error instanceof WorkflowNotFoundError ||
    (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND) ||
    /already completed|workflow is closing/i.test(error instanceof Error ? error.message : '')
  );
}
