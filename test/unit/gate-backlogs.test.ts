// The engine's cap on executions waiting at one gate (engine/domain/flow-control/
// gate-backlogs.ts): counted from what the gate last reported plus the calls
// accepted since; the gate is asked only once that count nears the cap, at
// most once a second, and never waited for; a refusal is a 429 whose
// Retry-After comes from how fast the gate drains.
import test from 'ava';
import { GateBacklogs } from '../../engine/domain/flow-control/gate-backlogs.ts';
import { LimitRefusedError } from '../../engine/domain/limits/webhook-limits.ts';
import type { AdmissionGate } from '../../flow/flow-control-contract.ts';

const gate: AdmissionGate = {
  kind: 'concurrency',
  coordinatorId: 'flowhook-concurrency:a:x',
  summary: '',
  keyLabel: 'INV-1',
  limit: 1,
};
const settle = () => new Promise((resolve) => setImmediate(resolve));

function backlogs(reports: (number | undefined)[], maxWaiting: number, liveEngines = 1) {
  let now = 1_000_000;
  const asked: number[] = [];
  const tracker = new GateBacklogs({
    maxWaiting,
    now: () => now,
    liveEngines: () => liveEngines,
    ask: async () => {
      asked.push(now);
      return reports.shift();
    },
  });
  /** `count` calls, each checked and accepted as the starter does. */
  const accept = async (count: number) => {
    for (let n = 0; n < count; n++) {
      tracker.check([gate]);
      tracker.accepted([gate]);
      await settle();
    }
  };
  return { tracker, asked, accept, advance: (ms: number) => (now += ms) };
}

test('calls are counted as they are accepted, and the one that would wait past the cap is refused with a Retry-After', async (t) => {
  // A gate that cannot be asked (no worker answers its queries): the count alone decides.
  const { tracker, accept } = backlogs([], 10);
  await accept(10);
  t.is(tracker.estimate(gate.coordinatorId), 10);
  const refusal = t.throws(() => tracker.check([gate]), { instanceOf: LimitRefusedError });
  t.is(refusal.limit, 'flow_control_backlog');
  t.regex(refusal.message, /FLOWHOOK_FLOW_CONTROL_MAX_WAITING/);
  t.regex(refusal.message, /key INV-1/);
  t.is(refusal.retryAfterSeconds, 30, 'no drain measured yet');
});

test('the gate is asked only near the cap, at most once a second, in the background; its report replaces the count, calls accepted meanwhile stay counted', async (t) => {
  const { tracker, asked, accept, advance } = backlogs([3, 0], 10);
  await accept(5);
  t.is(asked.length, 0, 'far from the cap: never asked');
  tracker.check([gate]);
  t.is(asked.length, 1, 'at half of the cap: asked');
  await settle();
  t.is(tracker.estimate(gate.coordinatorId), 3, 'the report replaces what was counted before it was asked');
  tracker.accepted([gate]);
  t.is(tracker.estimate(gate.coordinatorId), 4);
  await accept(3);
  t.is(asked.length, 1, 'not again within the second');
  t.is(tracker.estimate(gate.coordinatorId), 7);
  advance(1000);
  tracker.check([gate]);
  t.is(asked.length, 2);
  await settle();
  t.is(tracker.estimate(gate.coordinatorId), 0, 'drained');
});

test('with several engines each asks sooner, since it sees only its share of the calls', async (t) => {
  const { tracker, asked, accept } = backlogs([0], 100, 4);
  await accept(13);
  t.is(asked.length, 0);
  tracker.check([gate]);
  t.is(asked.length, 1, 'past 100 / (2 × 4)');
});

test('a gate that cannot be asked keeps its estimate; Retry-After follows the measured drain', async (t) => {
  const { tracker, accept, advance } = backlogs([100, undefined, 60], 100);
  await accept(50);
  tracker.check([gate]);
  await settle();
  t.is(tracker.estimate(gate.coordinatorId), 100, 'the gate reports 100 (other engines sent the rest)');
  advance(1000);
  t.throws(() => tracker.check([gate]), { instanceOf: LimitRefusedError });
  await settle();
  t.is(tracker.estimate(gate.coordinatorId), 100, 'no answer: the estimate stands');
  advance(1000);
  t.throws(() => tracker.check([gate]));
  await settle();
  t.is(tracker.estimate(gate.coordinatorId), 60);
  // 100 → 60 in two seconds: 20 a second.
  for (let n = 0; n < 40; n++) tracker.accepted([gate]);
  const refusal = t.throws(() => tracker.check([gate]), { instanceOf: LimitRefusedError });
  t.is(refusal.retryAfterSeconds, 1, '1 over the cap at 20 a second');
});
