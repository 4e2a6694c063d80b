// Whether an execution can still take a callback: Temporal says it is RUNNING. Asked by the
// callback_wait purge and when a key is held by another execution's unused row. Closed and
// unknown executions (never started here, or past the namespace's retention) cannot.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { UnavailableError } from '../errors.ts';

const DESCRIBE_TIMEOUT_MS = 10_000;

export async function executionStillRuns(temporal: Client, executionId: string): Promise<boolean> {
  const handle = temporal.workflow.getHandle(executionId);
  try {
    const description = await temporal.connection.withDeadline(Date.now() + DESCRIBE_TIMEOUT_MS, () => handle.describe());
    return description.status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    // Not an answer: the caller keeps the rows, or is asked to try again.
    throw new UnavailableError(`Temporal did not say whether execution "${executionId}" still runs: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}
