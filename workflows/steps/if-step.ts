// if: runs `then` or `else` by a condition. The only kind with nested steps:
// validation, the deferral walk and the step walks enter them through branches().
import { resolveValue } from '../formula/index.ts';
import { checkText } from '../shared/field-checks.ts';
import type { StepModule } from './step-module.ts';

export const ifStep: StepModule<'if'> = {
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
  async run(body, call) {
    const branch = (await resolveValue(body.condition ?? '', call.runtime.context)) ? 'then' : 'else';
    await call.services.runSteps(body[branch] ?? [], `${call.at}.if.${branch}`, call.runtime);
    return { output: { branch } };
  },
};
