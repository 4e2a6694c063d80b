// Which connections a flow's steps name, with the step paths that name them:
// publishing refuses a flow whose company lacks one, deleting a connection
// names the flows that use it.
import type { StepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';

export function connectionsUsedBy(steps: StepJson[], path = 'steps', found = new Map<string, string[]>()): Map<string, string[]> {
  steps.forEach((step, index) => {
    const at = `${path}[${index}]`;
    const name = step.httpRequest?.connection;
    if (name) found.set(name, [...(found.get(name) ?? []), `${at}.httpRequest.connection`]);
    if (step.if) {
      connectionsUsedBy(step.if.then ?? [], `${at}.if.then`, found);
      connectionsUsedBy(step.if.else ?? [], `${at}.if.else`, found);
    }
  });
  return found;
}
