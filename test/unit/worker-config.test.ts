import test from 'ava';
import { readWorkerConfig } from '../../workflows/config.ts';

test('workflow stack traces are off unless asked for, and the switch is checked', (t) => {
  t.false(readWorkerConfig({}).workflowStackTraces);
  t.true(readWorkerConfig({ FLOWHOOK_WORKFLOW_STACK_TRACES: 'true' }).workflowStackTraces);
  t.throws(() => readWorkerConfig({ FLOWHOOK_WORKFLOW_STACK_TRACES: 'yes' }), { message: /FLOWHOOK_WORKFLOW_STACK_TRACES must be true or false/ });
});

test('worker slots must be positive integers', (t) => {
  t.is(readWorkerConfig({ FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY: '7' }).maxConcurrentWorkflowTasks, 7);
  t.throws(() => readWorkerConfig({ FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY: '0' }), { message: /FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY must be a positive integer/ });
});
