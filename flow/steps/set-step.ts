// set: computes variables (Variables.<name>) for the steps after it (its
// runner: workflows/steps/set-runner.ts). The variables it sets are what
// validation warns about reads of variables nothing sets against.
import { checkDeep } from '../field-checks.ts';
import type { StepModel } from './step-model.ts';

export const setStep: StepModel<'set'> = {
  kind: 'set',
  validate(set, at, { errors, scope }) {
    if (!set.variables || Object.keys(set.variables).length === 0)
      errors.push(`${at}.variables: at least one variable`);
    else checkDeep(set.variables, `${at}.variables`, errors, scope);
  },
  variablesSet: (set) => Object.keys(set.variables ?? {}),
};
