// A gate writes a page of waiting executions from a local activity. When the
// workflow task that ran it fails after the page was started (found under a
// burst of 10,000 calls: Temporal force-closed a coordinator's task while
// signals poured in), the retried task writes the same page again from a tail
// that grew meanwhile. The page must then keep every entry of the larger tail
// — before this test, the second write was taken for a repeat and the newer
// entries waited until their own deadline (about 26 minutes) to ask again.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import type { QueuedExecution } from '../../flow/flow-control-contract.ts';
import { gatePageCountQuery, gatePageTakeSignal } from '../../flow/flow-control-messages.ts';
import { createFlowControlActivities } from '../../workflows/activities/flow-control.ts';
import { eventually } from '../support/eventually.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;

test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.close();
});

function entries(from: number, to: number): QueuedExecution[] {
  return Array.from({ length: to - from }, (_, index) => ({
    executionId: `paged.flow:${from + index}`,
    arrivedAt: 1_000 + from + index,
  }));
}

test('a page written again with a longer tail keeps every entry once, in arrival order', async (t) => {
  const activities = createFlowControlActivities(stack.temporal);
  const coordinatorId = `flowhook-concurrency:paged.flow:${randomUUID()}`;
  const pageId = `${coordinatorId}/page-1`;
  const write = (page: QueuedExecution[]) =>
    activities.startGatePage({
      pageId,
      taskQueue: stack.taskQueue,
      summary: 'waiting executions · test',
      page: { coordinatorId, entries: page },
    });
  // The failed attempt wrote 600 entries; its retry, 1,000 (the first 600 among them); a third write repeats the retry.
  await write(entries(0, 600));
  await write(entries(0, 1000));
  await write(entries(0, 1000));
  const page = stack.temporal.workflow.getHandle(pageId);
  const count = await eventually(() => page.query(gatePageCountQuery), {
    until: (held) => held === 1000,
    what: 'the page to hold all 1,000 entries',
  });
  t.is(count, 1000);
  // Asked for its entries with no gate left to answer to, it ends (its executions would ask again by their deadlines).
  await page.signal(gatePageTakeSignal);
  await t.notThrowsAsync(page.result());
});
