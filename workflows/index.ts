// The workflow bundle's entry point (Worker `workflowsPath`).
export { flowWorkflow } from './flow-workflow.ts';
export { flowConcurrencyWorkflow } from './flow-control/concurrency-workflow.ts';
export { flowThrottleWorkflow } from './flow-control/throttle-workflow.ts';
export { flowPauseGateWorkflow } from './flow-control/pause-gate-workflow.ts';
export { flowCollectorWorkflow } from './flow-control/collector-workflow.ts';
export { flowGatePageWorkflow } from './flow-control/gate-page-workflow.ts';
export { flowUnclaimedGrantWorkflow } from './flow-control/unclaimed-grant-workflow.ts';
export { flowhookAlertWorkflow } from './operations/alert-workflow.ts';
export { flowhookRetentionWorkflow } from './operations/retention-workflow.ts';
