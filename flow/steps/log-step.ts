// log: a message in the execution log (withheld for doNotLogPayload flows;
// its runner: workflows/steps/log-runner.ts).
import { checkText } from '../field-checks.ts';
import type { StepModel } from './step-model.ts';

export const logStep: StepModel<'log'> = {
  kind: 'log',
  validate(log, at, { errors, scope }) {
    checkText(log.message, `${at}.message`, errors, scope, true);
  },
};
