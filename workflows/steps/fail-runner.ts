// fail: ends the execution as failed, with the flow author's message.
import { resolveText } from '../../flow/formula/index.ts';
import { StepFailure } from '../../flow/step-failure.ts';
import type { StepRunner } from './step-runner.ts';

export const failRunner: StepRunner<'fail'> = {
  kind: 'fail',
  async run(fail, call) {
    const message = fail.message ? await resolveText(fail.message, call.runtime.context) : 'the flow chose to fail';
    // The flow's author wrote this message for whoever is told of the failure, the caller included.
    throw new StepFailure(`${call.label}: ${message}`, undefined, `${call.label}: ${message}`);
  },
};
