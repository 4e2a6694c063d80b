// fail: ends the execution as failed, with the flow author's message
// (its runner: workflows/steps/fail-runner.ts).
import { checkText } from '../field-checks.ts';
import type { StepModel } from './step-model.ts';

export const failStep: StepModel<'fail'> = {
  kind: 'fail',
  validate(fail, at, { errors, scope }) {
    checkText(fail.message, `${at}.message`, errors, scope);
  },
};
