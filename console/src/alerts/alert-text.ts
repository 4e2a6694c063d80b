// How the Alerts page names conditions, windows and states.
import { AlertCondition, AlertState, type Alert } from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';

export const CONDITIONS: { value: AlertCondition; label: string }[] = [
  { value: AlertCondition.EXECUTION_FAILED, label: 'An execution failed' },
  { value: AlertCondition.CALLS_REFUSED, label: 'Calls were refused' },
  { value: AlertCondition.SYNC_TIMEOUT, label: 'Sync calls timed out' },
  { value: AlertCondition.BACKLOG, label: 'Executions wait (backlog)' },
  { value: AlertCondition.NO_WORKER, label: 'No worker polls' },
];

/** 300 → 5m, 90 → 90s. */
export function windowText(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

export function whenText(alert: Alert): string {
  const rule = alert.rule;
  if (!rule) return '';
  const label = CONDITIONS.find((condition) => condition.value === rule.condition)?.label ?? 'Unknown';
  const about = rule.flow ? ` (${rule.flow})` : rule.reason ? ` (${rule.reason})` : '';
  return `${label}${about}`;
}

/** "3 in 5m"; a no-worker rule counts no events: "for 5m". */
export function thresholdText(alert: Alert): string {
  const window = windowText(alert.rule?.windowSeconds ?? 0);
  return alert.rule?.condition === AlertCondition.NO_WORKER ? `for ${window}` : `${alert.rule?.threshold} in ${window}`;
}

export function stateText(state: AlertState): string {
  return state === AlertState.FIRING ? 'Firing' : 'OK';
}
