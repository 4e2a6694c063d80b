// The workflow bundle's entry point (Worker `workflowsPath`).
export { flowWorkflow } from './flow-workflow.ts';
