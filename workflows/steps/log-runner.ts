// log: a message in the execution log (withheld for doNotLogPayload flows).
import { resolveText } from '../../flow/formula/index.ts';
import type { StepRunner } from './step-runner.ts';

export const logRunner: StepRunner<'log'> = {
  kind: 'log',
  async run(log, call) {
    const message = await resolveText(log.message ?? '', call.runtime.context);
    return { output: { message }, note: message };
  },
};
