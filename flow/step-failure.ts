// Why a step failed, said in words that name the step; turned into an
// ApplicationFailure by the workflow so it fails the execution, not the task.
// The failure types come from flow-contract.ts, not the index: the index loads validation and every step model, none of which a failure needs.
import { DEFERRAL_BEFORE_RESPONSE, FLOW_FAILED_BEFORE_RESPONSE } from './flow-contract.ts';

export class StepFailure extends Error {
  readonly failureType: string;
  /**
   * What a waiting caller may read (its 500). The full reason (message) can name internal URLs,
   * addresses, record keys or payload data, so it stays in the execution log, the workflow's
   * failure and the worker log; unset, runSteps says only which step failed.
   */
  publicMessage: string | undefined;
  constructor(message: string, failureType: string = FLOW_FAILED_BEFORE_RESPONSE, publicMessage?: string) {
    super(message);
    this.name = 'StepFailure';
    this.failureType = failureType;
    this.publicMessage = publicMessage;
  }
}

export function deferralBeforeResponse(stepLabel: string): StepFailure {
  const failure = new StepFailure(
    `${stepLabel} is a time-based deferral reached before any respond step while the caller was waiting; ` +
      'the synchronous response window cannot be paused (move the deferral after the respond step)',
    DEFERRAL_BEFORE_RESPONSE,
  );
  // Names only the flow's own step and a rule: safe for the caller as it is.
  failure.publicMessage = failure.message;
  return failure;
}
