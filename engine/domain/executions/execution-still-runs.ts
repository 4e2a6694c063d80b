// Whether an execution still runs: Temporal says its current run is RUNNING. Asked by the
// callback_wait purge, when a key is held by another execution's unused row, and by the grant
// check (security/execution-liveness.ts), which also wants the run's grant mark. Closed and
// unknown executions (never started here, or past the namespace's retention) do not run.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { UnavailableError } from '../../errors.ts';
import { RUN_MARK_MEMO } from './execution-grants.ts';

const DESCRIBE_TIMEOUT_MS = 10_000;

export interface ExecutionRunState {
  running: boolean;
  /** The current run's grant mark (security/execution-grants.ts); none for runs started before marks, or unknown ones. */
  runMark: string | undefined;
}

export async function executionRunState(temporal: Client, executionId: string): Promise<ExecutionRunState> {
  const handle = temporal.workflow.getHandle(executionId);
  try {
    const description = await temporal.connection.withDeadline(Date.now() + DESCRIBE_TIMEOUT_MS, () =>
      handle.describe(),
    );
    const mark = description.memo?.[RUN_MARK_MEMO];
    return { running: description.status.name === 'RUNNING', runMark: typeof mark === 'string' ? mark : undefined };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return { running: false, runMark: undefined };
    // Not an answer: the caller keeps the rows, or is asked to try again.
    throw new UnavailableError(
      `Temporal did not say whether execution "${executionId}" still runs: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
}

export async function executionStillRuns(temporal: Client, executionId: string): Promise<boolean> {
  return (await executionRunState(temporal, executionId)).running;
}
