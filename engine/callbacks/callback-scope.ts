// What the worker's calls about callbacks (ResolveOutbound's callback steps,
// RegisterCallbackKey) must prove beyond the usual execution access: a real
// execution grant, not merely a records account of the company. A callback
// URL or key leads an outside caller to the execution it names, so the
// execution id must be one the engine started for that company — a
// company-scoped account could otherwise point one at any workflow id.
import { InvalidArgumentError, PermissionDeniedError } from '../errors.ts';

// Step names as flow validation allows them (workflows/shared/flow-validation.ts).
const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_STEP_NAME_LENGTH = 200;

export function requireExecutionGrant(grant: string): void {
  if (grant === '') throw new PermissionDeniedError("callbacks are made only for an execution the engine started: send the execution's id and grant (the workflow input's executionGrant)");
}

export function checkStepName(step: string): void {
  if (step.length > MAX_STEP_NAME_LENGTH || !STEP_NAME.test(step)) throw new InvalidArgumentError('a callback step must be named by a step name (letters, digits and _)');
}

/**
 * The activity an execution id starts with: `<activity>:<uuid>`, `<activity>:key-…` or
 * `<activity>:rerun-…` (the part after the last colon never holds one).
 */
export function activityOfExecution(executionId: string): string {
  const colon = executionId.lastIndexOf(':');
  return colon > 0 ? executionId.slice(0, colon) : '';
}
