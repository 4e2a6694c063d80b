// Starts and ends the workflow that evaluates a rule (flow/alert-contract.ts,
// workflows/operations/alert-workflow.ts): one per rule, by its deterministic
// id, on the flows' task queue. A new rule replaces whatever ran under its id
// (a rule of the same name deleted while its workflow could not be ended); a
// changed rule keeps its running workflow, which reads the rule again every
// round. no-worker rules have no workflow: the engines watch for them
// (no-worker-watch.ts).
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ALERT_WORKFLOW_TYPE, alertWorkflowId, type AlertWorkflow } from '../../../flow/alert-contract.ts';
import type { AlertStateName } from '../../../flow/alert-state.ts';
import type { AlertRule } from '../../infrastructure/storage/entities.ts';

export interface AlertWorkflowDeps {
  temporal: Client;
  taskQueue: string;
}

export async function startAlertWorkflow(deps: AlertWorkflowDeps, rule: AlertRule, replace: boolean): Promise<void> {
  const workflowId = alertWorkflowId(rule.company.id, rule.name);
  if (rule.condition === 'no-worker') {
    await stopAlertWorkflow(deps, rule.company.id, rule.name);
    return;
  }
  await deps.temporal.workflow.start<AlertWorkflow>(ALERT_WORKFLOW_TYPE, {
    taskQueue: deps.taskQueue,
    workflowId,
    args: [
      {
        company: rule.company.name,
        name: rule.name,
        ruleId: rule.id,
        status: { state: rule.state as AlertStateName, incidents: rule.incidents },
      },
    ],
    workflowIdConflictPolicy: replace ? 'TERMINATE_EXISTING' : 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
}

/** Ends the rule's workflow; one that is not running is fine. */
export async function stopAlertWorkflow(deps: AlertWorkflowDeps, companyId: string, name: string): Promise<void> {
  try {
    await deps.temporal.workflow.getHandle(alertWorkflowId(companyId, name)).terminate('alert rule deleted or changed');
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
