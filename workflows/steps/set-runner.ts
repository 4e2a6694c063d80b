// set: computes variables (Variables.<name>) for the steps after it.
import { resolveDeep } from '../../flow/formula/index.ts';
import type { StepRunner } from './step-runner.ts';

export const setRunner: StepRunner<'set'> = {
  kind: 'set',
  async run(set, call) {
    const ctx = call.runtime.context;
    const values = (await resolveDeep(set.variables ?? {}, ctx)) as Record<string, unknown>;
    Object.assign(ctx.Variables, values);
    return { output: values };
  },
};
