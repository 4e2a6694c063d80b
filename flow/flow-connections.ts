// Which connections a flow's steps name, with the step paths that name them:
// publishing refuses a flow whose company lacks one, deleting a connection
// names the flows that use it. Which kinds name one is theirs to say (StepModel.connection, flow/steps/).
import type { StepJson } from '../proto/gen/flowhook/flow/v1/flow_pb.js';
import { stepBody, stepModel, walkSteps } from './steps/step-registry.ts';

export function connectionsUsedBy(
  steps: StepJson[],
  path = 'steps',
  found = new Map<string, string[]>(),
): Map<string, string[]> {
  walkSteps(steps, path, (step, at, kind) => {
    const name = kind && stepModel(kind).connection?.(stepBody(step, kind));
    if (name) found.set(name, [...(found.get(name) ?? []), `${at}.${kind}.connection`]);
  });
  return found;
}
