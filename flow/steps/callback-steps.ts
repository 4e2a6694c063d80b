// The flow's waitForCallback steps, found by their names: a callback names
// its step, `Callbacks.<name>.url` names it in formulas. Publishing checks
// against this list (flow/flow-validation.ts); the workflow builds the
// steps' placeholders and its callback inbox from it (workflows/flow-workflow.ts).
// Its own module, not the step's model: it walks the registry, which lists the model.
import type { StepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { DEFAULT_CALLBACK_STATUS } from '../callback-contract.ts';
import { stepBody, walkSteps } from './step-registry.ts';

export interface CallbackStep {
  name: string;
  /** Where it is, e.g. `steps[2]` or `steps[0].if.then[1]`. */
  path: string;
  /** Correlated by a key: no callback URL exists for it. */
  keyed: boolean;
  /** What an accepted callback's sender is answered. */
  responseStatus: number;
}

/** Named waitForCallback steps, nested ones included, in flow order; for a name used twice (a publish error), the first. */
export function callbackStepsOf(steps: StepJson[]): Map<string, CallbackStep> {
  const found = new Map<string, CallbackStep>();
  walkSteps(steps, 'steps', (step, path, kind) => {
    if (kind !== 'waitForCallback' || !step.name || found.has(step.name)) return;
    const body = stepBody(step, kind);
    found.set(step.name, {
      name: step.name,
      path,
      keyed: Boolean(body.key),
      responseStatus: body.responseStatus || DEFAULT_CALLBACK_STATUS,
    });
  });
  return found;
}
