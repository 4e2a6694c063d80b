// The conditions an alert rule may watch, as the CLI and the messages name
// them, and which options each takes. Pure.
import { AlertCondition } from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { REFUSAL_REASONS } from '../../../common/refusal-reasons.ts';

export const CONDITION_NAMES: Readonly<Record<Exclude<AlertCondition, AlertCondition.UNSPECIFIED>, string>> = {
  [AlertCondition.EXECUTION_FAILED]: 'execution-failed',
  [AlertCondition.CALLS_REFUSED]: 'calls-refused',
  [AlertCondition.SYNC_TIMEOUT]: 'sync-timeout',
  [AlertCondition.BACKLOG]: 'backlog',
  [AlertCondition.NO_WORKER]: 'no-worker',
};

export function conditionName(condition: AlertCondition): string {
  return CONDITION_NAMES[condition as keyof typeof CONDITION_NAMES] ?? 'unknown';
}

export function conditionNamed(name: string): AlertCondition | undefined {
  const found = Object.entries(CONDITION_NAMES).find(([, spelled]) => spelled === name);
  return found ? (Number(found[0]) as AlertCondition) : undefined;
}

/** Conditions about one flow or every flow (`--flow`). */
export const FLOW_CONDITIONS: ReadonlySet<AlertCondition> = new Set([
  AlertCondition.EXECUTION_FAILED,
  AlertCondition.BACKLOG,
]);

/**
 * What `--reason` may name: the refusal reasons (common/refusal-reasons.ts) and the status-derived
 * reasons the delivery log records for other refusals.
 */
export const REFUSED_CALL_REASONS: readonly string[] = [
  ...Object.keys(REFUSAL_REASONS),
  'bad_request',
  'not_found',
  'conflict',
  'payload_too_large',
  'rate_limited',
  'idempotency_conflict',
  'unavailable',
  'internal_error',
];
