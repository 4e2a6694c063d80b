// The step palette's run half: one runner per kind of the proto `Step` oneof,
// which the interpreter (workflows/interpreter/run-steps.ts) runs a step by,
// once the model registry (flow/steps/step-registry.ts) has told its kind.
// Its type has a member per oneof case, like the model registry's, so a new
// proto step message does not compile until its runner is listed here too.
import type { StepCase } from '../../flow/steps/step-model.ts';
import { failRunner } from './fail-runner.ts';
import { httpRequestRunner } from './http-request-runner.ts';
import { ifRunner } from './if-runner.ts';
import { logRunner } from './log-runner.ts';
import { recordRunner } from './record-runner.ts';
import { respondRunner } from './respond-runner.ts';
import { setRunner } from './set-runner.ts';
import { sleepRunner } from './sleep-runner.ts';
import type { StepRunner } from './step-runner.ts';
import { waitForCallbackRunner } from './wait-for-callback-runner.ts';
import { waitUntilRunner } from './wait-until-runner.ts';

export const STEP_RUNNERS: { readonly [K in StepCase]: StepRunner<K> } = Object.freeze({
  respond: respondRunner,
  sleep: sleepRunner,
  waitUntil: waitUntilRunner,
  set: setRunner,
  if: ifRunner,
  httpRequest: httpRequestRunner,
  log: logRunner,
  fail: failRunner,
  record: recordRunner,
  waitForCallback: waitForCallbackRunner,
});

/** A kind's runner with its body type kept (indexing the mapped type alone widens it to a union). */
export function stepRunner<K extends StepCase>(kind: K): StepRunner<K> {
  return STEP_RUNNERS[kind] as StepRunner<K>;
}
