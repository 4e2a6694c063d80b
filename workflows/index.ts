// The workflow bundle's entry point (Worker `workflowsPath`).
export { flowWorkflow } from './flow-workflow.ts';
export { flowConcurrencyWorkflow } from './control/concurrency-workflow.ts';
export { flowThrottleWorkflow } from './control/throttle-workflow.ts';
export { flowPauseGateWorkflow } from './control/pause-gate-workflow.ts';
export { flowCollectorWorkflow } from './control/collector-workflow.ts';
export { flowGatePageWorkflow } from './control/gate-page-workflow.ts';
export { flowUnclaimedGrantWorkflow } from './control/unclaimed-grant-workflow.ts';
