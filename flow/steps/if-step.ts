// if: runs `then` or `else` by a condition. The only kind with nested steps:
// validation, the deferral walk and the step walks enter them through
// branches(); its runner (workflows/steps/if-runner.ts) runs the one chosen.
import { checkText } from '../field-checks.ts';
import type { StepModel } from './step-model.ts';

export const ifStep: StepModel<'if'> = {
  kind: 'if',
  validate(body, at, check) {
    checkText(body.condition, `${at}.condition`, check.errors, check.scope, true);
    for (const branch of ifStep.branches!(body)) {
      check.validateSteps(branch.steps, `${at}.${branch.name}`);
    }
  },
  branches: (body) => [
    { name: 'then', steps: body.then ?? [] },
    { name: 'else', steps: body.else ?? [] },
  ],
};
