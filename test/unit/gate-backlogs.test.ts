// The engine's cap on executions waiting at one gate (engine/flow-control/
// gate-backlogs.ts): counted from what the gate last reported plus the calls
// accepted since, asked at most once a second per gate and never waited for;
// a refusal is a 429 whose Retry-After comes from how fast the gate drains.
import test from 'ava';
import { GateBacklogs } from '../../engine/flow-control/gate-backlogs.ts';
import { LimitRefusedError } from '../../engine/limits/webhook-limits.ts';
import type { AdmissionGate } from '../../workflows/shared/flow-control-contract.ts';

const gate: AdmissionGate = { kind: 'concurrency', coordinatorId: 'flowhook-concurrency:a:x', summary: '', keyLabel: 'INV-1', limit: 1 };
const settle = () => new Promise((resolve) => setImmediate(resolve));

function backlogs(reports: (number | undefined)[], maxWaiting = 10) {
  let now = 1_000_000;
  const asked: number[] = [];
  const tracker = new GateBacklogs({
    maxWaiting,
    now: () => now,
    ask: async () => {
      asked.push(now);
      return reports.shift();
    },
  });
  return { tracker, asked, advance: (ms: number) => (now += ms) };
}

test('calls are counted as they are accepted, and the one that would wait past the cap is refused with a Retry-After', async (t) => {
  const { tracker } = backlogs([0]);
  for (let n = 0; n < 10; n++) {
    tracker.check([gate]);
    tracker.accepted([gate]);
    await settle();
  }
  t.is(tracker.estimate(gate.coordinatorId), 10);
  const refusal = t.throws(() => tracker.check([gate]), { instanceOf: LimitRefusedError });
  t.is(refusal.limit, 'flow_control_backlog');
  t.regex(refusal.message, /FLOWHOOK_FLOW_CONTROL_MAX_WAITING/);
  t.regex(refusal.message, /key INV-1/);
  t.true(refusal.retryAfterSeconds >= 1);
});

test('the gate is asked at most once a second, in the background; its report replaces the count, calls accepted meanwhile stay counted', async (t) => {
  const { tracker, asked, advance } = backlogs([3, 0], 1000);
  tracker.check([gate]);
  t.is(asked.length, 1, 'the first call asks');
  tracker.accepted([gate]);
  tracker.check([gate]);
  t.is(asked.length, 1, 'not again within the second');
  await settle();
  t.is(tracker.estimate(gate.coordinatorId), 4, 'the report, and the call accepted while it was asked on top (it may not be in the report)');
  tracker.accepted([gate]);
  t.is(tracker.estimate(gate.coordinatorId), 5);
  advance(1000);
  tracker.check([gate]);
  t.is(asked.length, 2);
  await settle();
  t.is(tracker.estimate(gate.coordinatorId), 0, 'drained: the calls counted before the question are in the report');
});

test('a gate that cannot be asked keeps its estimate; Retry-After follows the measured drain', async (t) => {
  const { tracker, advance } = backlogs([100, undefined, 60], 100);
  tracker.check([gate]);
  await settle();
  t.is(tracker.estimate(gate.coordinatorId), 100);
  advance(1000);
  t.throws(() => tracker.check([gate]), { instanceOf: LimitRefusedError });
  await settle();
  t.is(tracker.estimate(gate.coordinatorId), 100, 'no answer: the estimate stands');
  advance(1000);
  t.throws(() => tracker.check([gate]));
  await settle();
  // 100 → 60 in two seconds: 20 a second.
  for (let n = 0; n < 40; n++) tracker.accepted([gate]);
  const refusal = t.throws(() => tracker.check([gate]), { instanceOf: LimitRefusedError });
  t.is(refusal.retryAfterSeconds, 1, '1 over the cap at 20 a second');
});
