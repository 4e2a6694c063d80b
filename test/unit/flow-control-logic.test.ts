// The pure parts of flow control: key evaluation, coordinator ids and key
// labels, the payload key's window, the throttle's bucket and the collector's
// windows (a gate's queue: gate-queue.test.ts).
import test from 'ava';
import { controlKeysOf, ControlKeyError } from '../../flow/control-keys.ts';
import { coordinatorId, keyLabel, keyLabels, pauseGateId } from '../../engine/domain/flow-control/coordinator-ids.ts';
import { payloadKeyedExecutionId } from '../../engine/domain/flow-control/payload-keys.ts';
import { msUntilToken, refill } from '../../common/token-bucket.ts';
import { CollectorWindows, windowInput } from '../../workflows/flow-control/collector-windows.ts';
import { collectedCall, executionTemplate } from '../support/collector-fixtures.ts';

const secret = Buffer.alloc(32, 7);
const flow = { company: 'Acme', flowName: 'invoices', activity: 'acme.invoice' };

test('a key is the formula written as text: strings as is, numbers as sent, nothing as empty; a failing formula says so without the payload', async (t) => {
  const keys = controlKeysOf({
    company: 'Acme',
    activity: 'a',
    description: '',
    payloadJson: '{"invoice": "INV-1", "amount": 12345678901234567890, "tags": ["x"]}',
  });
  t.is(await keys('${Trigger.Payload.invoice}'), 'INV-1');
  t.is(await keys('${Trigger.Payload.amount}'), '12345678901234567890');
  t.is(await keys('${Trigger.Payload.tags}'), '["x"]');
  t.is(await keys('${Trigger.Payload.missing}'), '');
  t.is(await keys('${Company.Name}/{{Trigger.Payload.invoice}}'), 'Acme/INV-1');
  const error = await t.throwsAsync(keys('${$number(Trigger.Payload.invoice)}'), { instanceOf: ControlKeyError });
  t.false(error.message.includes('INV-1'));
});

test('coordinator ids tell controls, companies, flows, scopes and keys apart, and never show the key', (t) => {
  const id = coordinatorId(secret, 'concurrency', flow, 'INV-1');
  t.regex(id, /^flowhook-concurrency:acme\.invoice:[A-Za-z0-9_-]{32}$/);
  t.false(id.includes('INV-1'));
  t.is(coordinatorId(secret, 'concurrency', flow, 'INV-1'), id);
  const others = [
    coordinatorId(secret, 'throttle', flow, 'INV-1'),
    coordinatorId(secret, 'concurrency', { ...flow, company: 'Other' }, 'INV-1'),
    coordinatorId(secret, 'concurrency', { ...flow, flowName: 'other' }, 'INV-1'),
    coordinatorId(secret, 'concurrency', flow, 'INV-2'),
    coordinatorId(secret, 'concurrency', flow, 'INV-1', '2'),
    coordinatorId(Buffer.alloc(32, 8), 'concurrency', flow, 'INV-1'),
  ];
  t.is(new Set([id, ...others]).size, 7);
  t.regex(pauseGateId(secret, flow), /^flowhook-pause:[A-Za-z0-9_-]{32}$/);
});

test('key labels: the key itself, except for doNotLogPayload flows, long keys and control characters; a filter knows every label', (t) => {
  t.is(keyLabel(secret, 'INV-1', false), 'INV-1');
  t.is(keyLabel(secret, '', true), '');
  const hidden = keyLabel(secret, 'INV-1', true);
  t.regex(hidden, /^#[A-Za-z0-9_-]{16}$/);
  t.is(keyLabel(secret, 'x'.repeat(101), false), keyLabel(secret, 'x'.repeat(101), true));
  t.regex(keyLabel(secret, 'a\nb', false), /^#/);
  t.deepEqual(keyLabels(secret, 'INV-1'), ['INV-1', hidden]);
});

test('a payload key joins the execution of the previous window while it is younger than the window, else the current window', async (t) => {
  const windowMs = 60_000;
  const now = 10 * windowMs + 5000;
  const call = { company: 'Acme', caller: 'user:u', activity: 'a', key: 'evt_1', windowMs };
  const started = new Map<string, Date>();
  const startTimeOf = async (id: string) => started.get(id);
  const current = await payloadKeyedExecutionId(secret, startTimeOf, call, now);
  const previous = await payloadKeyedExecutionId(secret, startTimeOf, call, now - windowMs);
  t.not(current, previous);
  t.regex(current, /^a:key-[0-9a-f]{40}$/);
  started.set(previous, new Date(now - windowMs + 1000));
  t.is(
    await payloadKeyedExecutionId(secret, startTimeOf, call, now),
    previous,
    'the first execution started less than a window ago',
  );
  started.set(previous, new Date(now - windowMs));
  t.is(
    await payloadKeyedExecutionId(secret, startTimeOf, call, now),
    current,
    'a window after the first, a repeat starts anew',
  );
  t.not(
    await payloadKeyedExecutionId(secret, startTimeOf, { ...call, caller: 'user:v' }, now),
    current,
    'keys are per caller, as headers are',
  );
});

test('the throttle bucket refills at the rate up to the burst; the wait for a token is what is missing', (t) => {
  const empty = { tokens: 0, countedAt: 1000 };
  t.deepEqual(refill(empty, 1500, 2, 3), { tokens: 1, countedAt: 1500 });
  t.deepEqual(refill(empty, 60_000, 2, 3), { tokens: 3, countedAt: 60_000 });
  t.deepEqual(refill(empty, 500, 2, 3), { tokens: 0, countedAt: 500 }, 'a clock that goes back adds nothing');
  t.is(msUntilToken({ tokens: 0.25, countedAt: 0 }, 0.5), 1500);
  t.is(msUntilToken({ tokens: 1, countedAt: 0 }, 0.5), 0);
});

const template = executionTemplate();
const collected = collectedCall;

test('debounce: one window whose deadline moves with every call, bounded by maxWait; the execution has the last payload and every one in order', (t) => {
  const policy = { kind: 'debounce', periodMs: 1000, maxWaitMs: 2500 } as const;
  const windows = new CollectorWindows(policy, template);
  t.is(windows.add(collected(1), 0), 'exec-1');
  t.is(windows.add(collected(2), 800), 'exec-1', "the window keeps the first call's execution");
  t.is(windows.nextDue(), 1800);
  windows.add(collected(3), 1700);
  t.is(windows.nextDue(), 2500, 'maxWait after the first call at the latest');
  t.deepEqual(windows.takeDue(2499), []);
  const [window] = windows.takeDue(2500);
  const input = windowInput(template, policy, window!);
  t.is(input.payloadJson, '{"n": 3}');
  t.is(input.caller, 'user:3');
  t.is(input.executionGrant, 'grant-1');
  t.deepEqual(input.coalesced, { count: 3, payloads: ['{"n": 1}', '{"n": 2}', '{"n": 3}'] });
  t.true(windows.isEmpty);
});

test('a collector begun before maxWait had a default keeps calling windows unbounded until it takes the default, then ends them at ten periods', (t) => {
  const windows = new CollectorWindows({ kind: 'debounce', periodMs: 1000 }, template);
  windows.add(collected(1), 0);
  for (let at = 500; at <= 20_000; at += 500) windows.add(collected(at), at);
  t.true(windows.unbounded);
  t.is(windows.nextDue(), 21_000, 'as before: a period after the latest call, however long the calls keep coming');
  windows.takeDefaultMaxWait();
  t.false(windows.unbounded);
  t.is(windows.nextDue(), 10_000, 'ten periods after the first call');
  t.is(windows.takeDue(20_000)[0]?.count, 41);
});

test('debounce keeps the latest 100 payloads but counts every call', (t) => {
  const policy = { kind: 'debounce', periodMs: 1000 } as const;
  const windows = new CollectorWindows(policy, template);
  for (let n = 0; n < 150; n++) windows.add(collected(n), n);
  const input = windowInput(template, policy, windows.takeDue(10_000)[0]!);
  t.is(input.coalesced?.count, 150);
  t.is(input.coalesced?.payloads.length, 100);
  t.is(input.coalesced?.payloads[0], '{"n": 50}');
});

test('batch: windows fill in order up to maxSize, each due when full or maxWait after its first call; a held call holds its batch', (t) => {
  const policy = { kind: 'batch', maxSize: 2, maxWaitMs: 5000 } as const;
  const windows = new CollectorWindows(policy, template);
  const pauseGate = { kind: 'pause', coordinatorId: 'gate', summary: '' } as const;
  t.is(windows.add(collected(1), 0), 'exec-1');
  t.is(
    windows.add(collected(2, { held: true, seed: { ...collected(2).seed, control: { gates: [pauseGate] } } }), 10),
    'exec-1',
  );
  t.is(windows.add(collected(3), 20), 'exec-3', 'a full batch: the next call opens the next one');
  t.is(windows.nextDue(), 0, 'the full one is due at once');
  const [full] = windows.takeDue(20);
  const input = windowInput(template, policy, full!);
  t.deepEqual(
    input.batch?.map((call) => [call.payload, call.caller]),
    [
      ['{"n": 1}', 'user:1'],
      ['{"n": 2}', 'user:2'],
    ],
  );
  t.deepEqual(input.control?.gates, [pauseGate]);
  t.is(windows.nextDue(), 5020);
  t.deepEqual(
    windowInput(template, policy, windows.takeDue(5020)[0]!).batch?.map((call) => call.payload),
    ['{"n": 3}'],
  );
});
