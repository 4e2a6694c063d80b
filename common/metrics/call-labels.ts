// The closed vocabularies of webhook call labels, and the webhook call series,
// shared by facade and engine so a dashboard can put them side by side.
import { UNKNOWN } from './label-values.ts';
import { CALL_SECONDS_BUCKETS, type MetricsRegistry } from './metrics-registry.ts';

export const CALL_MODES = ['instant', 'sync'] as const;
export type CallMode = (typeof CALL_MODES)[number];

/** What became of a call: a respond step's answer, the sync timeout's, the flow's end's or Instant return's; or refused (4xx) / failed (5xx). */
export const CALL_OUTCOMES = [
  'responded',
  'sync_timeout',
  'flow_ended',
  'instant_return',
  'refused',
  'failed',
] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** Distinct (company, activity) pairs a process labels before it counts the rest as `other`. */
export const MAX_FLOW_SERIES = 2000;

/** The mode an answered call had, read from its outcome (only Instant return answers `instant_return`). */
export function modeOf(outcome: CallOutcome): CallMode | undefined {
  if (outcome === 'instant_return') return 'instant';
  if (outcome === 'refused' || outcome === 'failed') return undefined;
  return 'sync';
}

export interface WebhookCallSeries {
  /** One call, by its (bounded) labels: counted, and its duration observed by mode and outcome. */
  record(company: string, activity: string, mode: string, outcome: CallOutcome, result: string, seconds: number): void;
}

/**
 * flowhook_<component>_webhook_calls_total (by company, activity, mode, outcome and `result`: the engine's
 * Connect code, the facade's HTTP status) and flowhook_<component>_webhook_call_duration_seconds (by mode and outcome).
 */
export function webhookCallSeries(
  registry: MetricsRegistry,
  component: 'engine' | 'facade',
  result: 'code' | 'status',
  help: { calls: string; duration: string },
): WebhookCallSeries {
  const calls = registry.counter(`flowhook_${component}_webhook_calls_total`, help.calls, [
    'company',
    'activity',
    'mode',
    'outcome',
    result,
  ]);
  const duration = registry.histogram(
    `flowhook_${component}_webhook_call_duration_seconds`,
    help.duration,
    ['mode', 'outcome'],
    CALL_SECONDS_BUCKETS,
  );
  // Every outcome's series exists from the start at 0, so rate() sees the first refusal.
  for (const outcome of CALL_OUTCOMES) duration.metric.zero({ mode: modeOf(outcome) ?? UNKNOWN, outcome });
  return {
    record(company, activity, mode, outcome, resultLabel, seconds) {
      calls.get(company, activity, mode, outcome, resultLabel).inc();
      duration.get(mode, outcome).observe(seconds);
    },
  };
}
