// The closed vocabularies of webhook call labels, shared by facade and engine
// so a dashboard can put their series side by side.

export const CALL_MODES = ['instant', 'sync'] as const;
export type CallMode = (typeof CALL_MODES)[number];

/** What became of a call: a respond step's answer, the sync timeout's, the flow's end's or Instant return's; or refused (4xx) / failed (5xx). */
export const CALL_OUTCOMES = ['responded', 'sync_timeout', 'flow_ended', 'instant_return', 'refused', 'failed'] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** Distinct (company, activity) pairs a process labels before it counts the rest as `other`. */
export const MAX_FLOW_SERIES = 2000;

/** The mode an answered call had, read from its outcome (only Instant return answers `instant_return`). */
export function modeOf(outcome: CallOutcome): CallMode | undefined {
  if (outcome === 'instant_return') return 'instant';
  if (outcome === 'refused' || outcome === 'failed') return undefined;
  return 'sync';
}
