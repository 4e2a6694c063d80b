// The alert state machine (flow/alert-state.ts): one notification when the
// count reaches the threshold, one when it falls back under it, none while it
// stays on its side; each firing opens the next incident.
import test from 'ava';
import { stepAlert, type AlertStatus } from '../../flow/alert-state.ts';

/** The notifications a run of counts produces, as `<state>#<incident>@<count>`. */
function notifications(counts: number[], threshold: number, start: AlertStatus = { state: 'ok', incidents: 0 }) {
  let status = start;
  const said: string[] = [];
  for (const count of counts) {
    const step = stepAlert(status, count, threshold);
    if (step.notify) said.push(`${step.notify.state}#${step.notify.incident}@${step.notify.count}`);
    status = step.status;
  }
  return { said, status };
}

test('fires once at the threshold, stays quiet while firing, resolves once under it', (t) => {
  const { said, status } = notifications([0, 1, 2, 3, 4, 5, 3, 2, 0, 0], 3);
  t.deepEqual(said, ['firing#1@3', 'ok#1@2']);
  t.deepEqual(status, { state: 'ok', incidents: 1 });
});

test('each firing after a resolution is a new incident', (t) => {
  t.deepEqual(notifications([1, 0, 1, 1, 0], 1).said, ['firing#1@1', 'ok#1@0', 'firing#2@1', 'ok#2@0']);
});

test('a state carried in (a restarted workflow, continue-as-new) goes on from where it was', (t) => {
  t.deepEqual(notifications([5, 0], 2, { state: 'firing', incidents: 4 }).said, ['ok#4@0']);
  t.deepEqual(notifications([5], 2, { state: 'ok', incidents: 4 }).said, ['firing#5@5']);
});

test('a threshold below 1 counts as 1: an empty window never fires', (t) => {
  t.deepEqual(notifications([0, 0], 0).said, []);
  t.deepEqual(notifications([0, 1], 0).said, ['firing#1@1']);
});
