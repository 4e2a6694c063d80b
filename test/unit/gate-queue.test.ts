// A gate's queue (workflows/flow-control/gate-queue.ts): arrival order, one place
// per execution, and the pages that keep what a coordinator carries bounded
// whatever waits — driven as a coordinator drives it, pages written and taken
// back through the queue's own answers.
import test from 'ava';
import { GateQueue } from '../../workflows/flow-control/gate-queue.ts';
import { GATE_LIMITS, type QueuedExecution } from '../../flow/flow-control-contract.ts';

const entry = (n: number, arrivedAt = n): QueuedExecution => ({
  executionId: `billing.invoice.event:${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`,
  arrivedAt,
});
const idOf = (n: number) => entry(n).executionId;

test('executions wait in the order their calls were accepted, whatever order their requests come in, and each is known once', (t) => {
  const queue = new GateQueue('gate');
  t.true(queue.add(entry(3, 30)));
  t.true(queue.add(entry(1, 10)));
  t.true(queue.add(entry(2, 20)));
  t.true(queue.add(entry(22, 20)), 'the same time: after the one that came first');
  t.false(queue.add(entry(1, 5)), 'a repeated request keeps the first place');
  t.is(queue.waiting, 4);
  t.true(queue.remove(idOf(2)));
  t.false(queue.remove(idOf(2)));
  t.deepEqual(
    [queue.shift(), queue.shift(), queue.shift(), queue.shift()].map((e) => e?.executionId),
    [idOf(1), idOf(22), idOf(3), undefined],
  );
  t.false(queue.has(idOf(3)), 'gone once it passed: it may come again');
  t.true(queue.add(entry(3)));
});

/** Drives a queue as a coordinator does, with pages kept in a map (Temporal's storage). */
function coordinated(carry?: ReturnType<GateQueue['toJSON']>) {
  const queue = new GateQueue('gate', carry);
  const pages = new Map<string, QueuedExecution[]>();
  const page = () => {
    for (let spilled = queue.spill(); spilled; spilled = queue.spill()) pages.set(spilled.page.id, spilled.entries);
    const taken = queue.pageToTake();
    if (taken) t_refill(taken.id);
  };
  const t_refill = (id: string) => {
    const entries = pages.get(id)!;
    pages.delete(id);
    queue.refill(id, entries);
  };
  return { queue, pages, page };
}

test('100,000 waiting executions: the state a coordinator carries stays bounded, the rest waits in pages, and all pass once, in order', (t) => {
  const { queue, pages, page } = coordinated();
  let largestCarry = 0;
  for (let n = 0; n < 100_000; n++) {
    queue.add(entry(n));
    if (n % 500 === 0) {
      page();
      largestCarry = Math.max(largestCarry, JSON.stringify(queue.toJSON()).length);
    }
  }
  page();
  t.is(queue.waiting, 100_000);
  t.true(pages.size >= 90, `${pages.size} pages`);
  t.true(queue.inMemory <= GATE_LIMITS.headWaiters + GATE_LIMITS.pageWaiters);
  let passed = 0;
  let last = -1;
  for (;;) {
    page();
    const next = queue.shift();
    if (!next) break;
    t.true(next.arrivedAt > last, `in order: ${next.arrivedAt} after ${last}`);
    last = next.arrivedAt;
    passed += 1;
    if (passed % 997 === 0) largestCarry = Math.max(largestCarry, JSON.stringify(queue.toJSON()).length);
  }
  t.is(passed, 100_000);
  t.is(queue.waiting, 0);
  t.is(pages.size, 0);
  t.true(largestCarry < 1024 * 1024, `largest carried state ${largestCarry} bytes`);
});

test('a queue carried into a new run goes on where it was: the same order, the page being taken still expected', (t) => {
  const first = coordinated();
  for (let n = 0; n < 5000; n++) first.queue.add(entry(n));
  first.page();
  for (let n = 0; n < 2000; n++) first.queue.shift();
  // The oldest page is asked for, and its answer comes only after the coordinator continued as new.
  for (let spilled = first.queue.spill(); spilled; spilled = first.queue.spill())
    first.pages.set(spilled.page.id, spilled.entries);
  const asked = first.queue.pageToTake()!;
  t.truthy(asked);
  const carried = JSON.parse(JSON.stringify(first.queue.toJSON()));
  const second = new GateQueue('gate', carried);
  t.is(second.taking, asked.id);
  t.is(second.waiting, 3000);
  t.false(second.refill('gate/page-999', []), 'an answer from another page changes nothing');
  t.true(second.refill(asked.id, first.pages.get(asked.id)!));
  first.pages.delete(asked.id);
  t.false(second.refill(asked.id, []), 'a repeated answer changes nothing');
  const order: number[] = [];
  for (;;) {
    for (let spilled = second.spill(); spilled; spilled = second.spill())
      first.pages.set(spilled.page.id, spilled.entries);
    const taken = second.pageToTake();
    if (taken) {
      second.refill(taken.id, first.pages.get(taken.id)!);
      first.pages.delete(taken.id);
    }
    const next = second.shift();
    if (!next) break;
    order.push(next.arrivedAt);
  }
  t.deepEqual(
    order,
    Array.from({ length: 3000 }, (_, n) => n + 2000),
  );
});

test('a page that is gone is dropped: its executions no longer count as waiting (each asks again by its deadline)', (t) => {
  const { queue, pages } = coordinated();
  for (let n = 0; n < GATE_LIMITS.headWaiters + GATE_LIMITS.pageWaiters; n++) queue.add(entry(n));
  const spilled = queue.spill()!;
  pages.set(spilled.page.id, spilled.entries);
  while (queue.headLength >= GATE_LIMITS.refillBelow) queue.shift();
  t.is(queue.pageToTake()?.id, spilled.page.id);
  const before = queue.waiting;
  t.is(queue.dropTaken()?.count, GATE_LIMITS.pageWaiters);
  t.is(queue.waiting, before - GATE_LIMITS.pageWaiters);
  t.is(queue.taking, undefined);
  t.false(queue.refill(spilled.page.id, spilled.entries), 'its answer, should it still come, is not taken twice');
});

test('large entries (long ids, gates still to pass) are paged by size, so no page or carried state nears Temporal’s limit', (t) => {
  const { queue, pages, page } = coordinated();
  const next = [
    {
      kind: 'concurrency' as const,
      coordinatorId: `flowhook-concurrency:${'a'.repeat(200)}:x`,
      summary: 's'.repeat(300),
      keyLabel: 'k'.repeat(100),
      limit: 1,
    },
  ];
  for (let n = 0; n < 10_000; n++) {
    queue.add({ executionId: `${'a'.repeat(250)}:${n}`, arrivedAt: n, next });
    if (n % 100 === 0) page();
  }
  page();
  for (const entries of pages.values()) t.true(JSON.stringify(entries).length < 512 * 1024);
  t.true(JSON.stringify(queue.toJSON()).length < 1024 * 1024);
  t.is(queue.waiting, 10_000);
});
