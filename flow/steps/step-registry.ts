// The step palette's model half: one model per kind of the proto `Step`
// oneof. This list drives validation (flow/flow-validation.ts), the deferral
// walk, the step walks (names, variables, connections) and, by stepKind and
// stepBody, the interpreter (workflows/interpreter/run-steps.ts), which runs
// each kind by its runner (workflows/steps/runner-registry.ts). Its type has
// a member per oneof case, so a new proto step message does not compile until
// its model is listed here. The order is the order a step's kind is looked
// for, and the order of STEP_KINDS (metrics labels).
import type { StepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { failStep } from './fail-step.ts';
import { httpRequestStep } from './http-request-step.ts';
import { ifStep } from './if-step.ts';
import { logStep } from './log-step.ts';
import { recordStep } from './record-step.ts';
import { respondStep } from './respond-step.ts';
import { setStep } from './set-step.ts';
import { sleepStep } from './sleep-step.ts';
import type { StepBody, StepCase, StepModel } from './step-model.ts';
import { waitForCallbackStep } from './wait-for-callback-step.ts';
import { waitUntilStep } from './wait-until-step.ts';

export const STEP_MODELS: { readonly [K in StepCase]: StepModel<K> } = Object.freeze({
  respond: respondStep,
  sleep: sleepStep,
  waitUntil: waitUntilStep,
  set: setStep,
  if: ifStep,
  httpRequest: httpRequestStep,
  log: logStep,
  fail: failStep,
  record: recordStep,
  waitForCallback: waitForCallbackStep,
});

export type StepKind = StepCase;

export const STEP_KINDS: readonly StepKind[] = Object.freeze(Object.keys(STEP_MODELS) as StepKind[]);

/** The step's type: the one oneof member present in its JSON form. */
export function stepKind(step: StepJson): StepKind | undefined {
  return STEP_KINDS.find((kind) => step[kind] !== undefined);
}

export function stepDescription(step: StepJson): string {
  const kind = stepKind(step);
  return (kind && step[kind]!.description) || '';
}

/** A kind's model with its body type kept (indexing the mapped type alone widens it to a union). */
export function stepModel<K extends StepKind>(kind: K): StepModel<K> {
  return STEP_MODELS[kind] as StepModel<K>;
}

export function stepBody<K extends StepKind>(step: StepJson, kind: K): StepBody<K> {
  return step[kind]!;
}

/**
 * Visits every step, nested ones right after the step that holds them (branch by branch), with
 * its path in the flow file's spelling (`steps[0].if.then[1]`). Steps without a kind are visited
 * too (they hold nothing).
 */
export function walkSteps(
  steps: StepJson[],
  path: string,
  visit: (step: StepJson, at: string, kind: StepKind | undefined) => void,
): void {
  steps.forEach((step, index) => {
    const at = `${path}[${index}]`;
    const kind = stepKind(step);
    visit(step, at, kind);
    if (!kind) return;
    for (const branch of stepModel(kind).branches?.(stepBody(step, kind)) ?? [])
      walkSteps(branch.steps, `${at}.${kind}.${branch.name}`, visit);
  });
}
