// An alert rule's state machine, pure: the alert workflow
// (workflows/operations/alert-workflow.ts) and the engines' no-worker watch
// (engine/domain/alerts/no-worker-watch.ts) step it with each count. It fires
// once when the count reaches the threshold and resolves once when the count
// falls back under it; a count that stays on its side says nothing, so a
// firing alert is never repeated. Each firing opens a new incident (1, 2, …),
// which with the state names the notification: its id stays the same when a
// send is tried again.

export type AlertStateName = 'ok' | 'firing';

export interface AlertStatus {
  state: AlertStateName;
  /** Incidents so far; the current one while firing. */
  incidents: number;
}

export interface AlertNotification {
  state: AlertStateName;
  incident: number;
  count: number;
}

export interface AlertStep {
  status: AlertStatus;
  /** Set when this count changed the state: the one notification to send. */
  notify?: AlertNotification;
}

export function stepAlert(status: AlertStatus, count: number, threshold: number): AlertStep {
  const crossed = count >= Math.max(1, threshold);
  if (status.state === 'ok' && crossed) {
    const incident = status.incidents + 1;
    return { status: { state: 'firing', incidents: incident }, notify: { state: 'firing', incident, count } };
  }
  if (status.state === 'firing' && !crossed) {
    return {
      status: { state: 'ok', incidents: status.incidents },
      notify: { state: 'ok', incident: status.incidents, count },
    };
  }
  return { status };
}
