// fail: ends the execution as failed, with the flow author's message.
import { resolveText } from '../formula/index.ts';
import { checkText } from '../shared/field-checks.ts';
import { StepFailure } from '../interpreter/step-errors.ts';
import type { StepModule } from './step-module.ts';

export const failStep: StepModule<'fail'> = {
  kind: 'fail',
  validate(fail, at, { errors, scope }) {
    checkText(fail.message, `${at}.message`, errors, scope);
  },
  async run(fail, call) {
    const message = fail.message ? await resolveText(fail.message, call.runtime.context) : 'the flow chose to fail';
    // The flow's author wrote this message for whoever is told of the failure, the caller included.
    throw new StepFailure(`${call.label}: ${message}`, undefined, `${call.label}: ${message}`);
  },
};
