// How much one worker runs and keeps at once.
import { setting, settingsGroup } from '../setting.ts';
import { integer } from '../values/integer-value.ts';

export const WORKER_SETTINGS = settingsGroup('Workers', {
  FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY: setting({
    type: integer({ min: 1 }),
    default: 100,
    processes: ['worker'],
    meaning: 'workflow tasks a worker runs at once (short flows want this high)',
  }),
  FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY: setting({
    type: integer({ min: 1 }),
    default: 100,
    processes: ['worker'],
    meaning: 'activities a worker runs at once',
  }),
  FLOWHOOK_WORKER_CACHED_WORKFLOWS: setting({
    type: integer({ min: 2 }),
    defaultText:
      'from the heap: ⅔ of the workflow thread’s heap at 384 KiB per execution (497 for `flowhook worker`, 725 for `flowhook start` with their heap limits), at most 1000',
    processes: ['worker'],
    meaning:
      "executions a worker keeps in memory between their tasks (a cached one needs no replay): the worker's main memory lever",
    more: 'Executions waiting at flow-control gates are not among them: they sleep in Temporal. See [performance](../explanation/performance.md#memory) for what one costs.',
  }),
});
