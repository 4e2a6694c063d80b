// Why a step failed, said in words that name the step; turned into an
// ApplicationFailure by the workflow so it fails the execution, not the task.
import { DEFERRAL_BEFORE_RESPONSE, FLOW_FAILED_BEFORE_RESPONSE } from '../shared/index.ts';

export class StepFailure extends Error {
  readonly failureType: string;
  constructor(message: string, failureType: string = FLOW_FAILED_BEFORE_RESPONSE) {
    super(message);
    this.name = 'StepFailure';
    this.failureType = failureType;
  }
}

export function deferralBeforeResponse(stepLabel: string): StepFailure {
  return new StepFailure(
    `${stepLabel} is a time-based deferral reached before any respond step while the caller was waiting; ` +
      'the synchronous response window cannot be paused (move the deferral after the respond step)',
    DEFERRAL_BEFORE_RESPONSE,
  );
}
