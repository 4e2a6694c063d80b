// What the engine and the alert workflow agree on: the workflow's type and
// signature, its id, and its input. One workflow per rule (except no-worker,
// which the engines watch themselves: a workflow cannot notice that no worker
// runs it). Engine-safe: types and constants only.
import type { AlertStatus } from './alert-state.ts';

export const ALERT_WORKFLOW_TYPE = 'flowhookAlertWorkflow';

/** Where the rule is found again each round: a rule deleted and set again has another id, and ends this workflow. */
export interface AlertWorkflowInput {
  company: string;
  name: string;
  ruleId: string;
  /** The state the rule is in (from its row at start, or carried across continue-as-new). */
  status: AlertStatus;
}

export type AlertWorkflow = (input: AlertWorkflowInput) => Promise<void>;

/** `alert:<company id>:<rule name>`: one per rule, whatever starts it. */
export function alertWorkflowId(companyId: string, ruleName: string): string {
  return `alert:${companyId}:${ruleName}`;
}
