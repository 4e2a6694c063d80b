// if: runs `then` or `else` by a condition, through the interpreter's
// runSteps (handed in as a service), so nested steps are logged like the
// flow's own under paths like `steps[0].if.then[1]`.
import { resolveValue } from '../../flow/formula/index.ts';
import type { StepRunner } from './step-runner.ts';

export const ifRunner: StepRunner<'if'> = {
  kind: 'if',
  async run(body, call) {
    const branch = (await resolveValue(body.condition ?? '', call.runtime.context)) ? 'then' : 'else';
    await call.services.runSteps(body[branch] ?? [], `${call.at}.if.${branch}`, call.runtime);
    return { output: { branch } };
  },
};
