// log: a message in the execution log (withheld for doNotLogPayload flows).
import { resolveText } from '../formula/index.ts';
import { checkText } from '../shared/field-checks.ts';
import type { StepModule } from './step-module.ts';

export const logStep: StepModule<'log'> = {
  kind: 'log',
  validate(log, at, { errors, scope }) {
    checkText(log.message, `${at}.message`, errors, scope, true);
  },
  async run(log, call) {
    const message = await resolveText(log.message ?? '', call.runtime.context);
    return { output: { message }, note: message };
  },
};
