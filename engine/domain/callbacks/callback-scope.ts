// The shape of what the worker's calls about callbacks (ResolveOutbound's
// callback steps, RegisterCallbackKey) name: step names, and the activity an
// execution id belongs to. Who may make them is requireLiveGrant's business
// (security/execution-access.ts): a running execution's grant, never merely a
// records account of the company — a callback URL or key leads an outside
// caller to the execution it names.
import { InvalidArgumentError } from '../../errors.ts';

// Step names as flow validation allows them (flow/flow-validation.ts).
const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_STEP_NAME_LENGTH = 200;

export function checkStepName(step: string): void {
  if (step.length > MAX_STEP_NAME_LENGTH || !STEP_NAME.test(step))
    throw new InvalidArgumentError('a callback step must be named by a step name (letters, digits and _)');
}

/**
 * The activity an execution id starts with: `<activity>:<uuid>`, `<activity>:key-…` or
 * `<activity>:rerun-…` (the part after the last colon never holds one).
 */
export function activityOfExecution(executionId: string): string {
  const colon = executionId.lastIndexOf(':');
  return colon > 0 ? executionId.slice(0, colon) : '';
}
