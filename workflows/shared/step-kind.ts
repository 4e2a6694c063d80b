import type { StepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';

export const STEP_KINDS = ['respond', 'sleep', 'waitUntil', 'set', 'if', 'httpRequest', 'log', 'fail', 'record'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** The step's type: the one oneof member present in its JSON form. */
export function stepKind(step: StepJson): StepKind | undefined {
  return STEP_KINDS.find((kind) => step[kind] !== undefined);
}

export function stepDescription(step: StepJson): string {
  const kind = stepKind(step);
  return (kind && (step[kind] as { description?: string }).description) || '';
}
