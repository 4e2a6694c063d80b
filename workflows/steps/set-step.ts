// set: computes variables (Variables.<name>) for the steps after it.
import { resolveDeep } from '../formula/index.ts';
import { checkDeep } from '../shared/field-checks.ts';
import type { StepModule } from './step-module.ts';

export const setStep: StepModule<'set'> = {
  kind: 'set',
  validate(set, at, { errors, scope }) {
    if (!set.variables || Object.keys(set.variables).length === 0) errors.push(`${at}.variables: at least one variable`);
    else checkDeep(set.variables, `${at}.variables`, errors, scope);
  },
  variablesSet: (set) => Object.keys(set.variables ?? {}),
  async run(set, call) {
    const ctx = call.runtime.context;
    const values = (await resolveDeep(set.variables ?? {}, ctx)) as Record<string, unknown>;
    Object.assign(ctx.Variables, values);
    return { output: values };
  },
};
