// A debounce or batch window is measured as Temporal will see its execution's
// input — payloads as JSON strings, provider headers, the template — never by
// its raw payload bytes (workflows/flow-control/collector-windows.ts,
// flow/window-size.ts). Quote-heavy payloads are the case the raw
// count got wrong: 55 calls of 18 KB became a 1.93 MiB input.
import test from 'ava';
import { CollectorWindows, windowInput } from '../../workflows/flow-control/collector-windows.ts';
import { COLLECTED_LIMITS } from '../../flow/flow-control-contract.ts';
import { collectedCall, executionTemplate } from '../support/collector-fixtures.ts';
import { collectedCallBytes, fitsAlone, jsonBytes } from '../../flow/window-size.ts';

const template = executionTemplate([{ log: { message: 'x'.repeat(2000) } }] as never);

/** 18 KB of payload, nearly all quotes: about 36 KB as a JSON string. */
const quoteHeavy = (n: number) => `{"n": ${n}, "text": "${'\\"'.repeat(9000)}"}`;

/** A provider-route call: the request's headers are part of what its window's execution carries. */
const call = (n: number, payloadJson = quoteHeavy(n)) =>
  collectedCall(n, {
    payloadJson,
    direct: {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-attempt': String(n) },
      query: '',
      contentType: 'application/json',
      bodyEncoding: 'text',
      provider: { scheme: 'hmac' },
    },
  });

test('a batch fed quote-heavy payloads closes each window before its execution input would pass the cap, and keeps every call', (t) => {
  const policy = { kind: 'batch', maxSize: 100, maxWaitMs: 60_000 } as const;
  const windows = new CollectorWindows(policy, template);
  const joined = new Set<string>();
  for (let n = 0; n < 100; n++) joined.add(windows.add(call(n), n));
  t.true(joined.size >= 3, `${joined.size} windows for 100 calls of ~36 KB serialised each`);
  const taken = windows.takeDue(Number.MAX_SAFE_INTEGER);
  t.is(
    taken.reduce((sum, window) => sum + window.count, 0),
    100,
    'no call dropped',
  );
  for (const window of taken) {
    const input = windowInput(template, policy, window);
    const bytes = jsonBytes(input);
    t.true(bytes <= COLLECTED_LIMITS.windowBytes, `an execution input of ${bytes} bytes`);
    t.true(windows.inputBytes(window) >= bytes, 'the estimate never undercounts');
    t.is(input.batch?.length, window.count);
  }
});

test('debounce fed quote-heavy payloads keeps the latest ones within the cap and counts every call', (t) => {
  const policy = { kind: 'debounce', periodMs: 1000 } as const;
  const windows = new CollectorWindows(policy, template);
  for (let n = 0; n < 80; n++) windows.add(call(n), n);
  const [window] = windows.takeDue(Number.MAX_SAFE_INTEGER);
  const input = windowInput(template, policy, window!);
  t.is(input.coalesced?.count, 80);
  t.true(input.coalesced!.payloads.length < 80);
  t.is(input.coalesced?.payloads.at(-1), quoteHeavy(79), 'the latest payload is kept');
  t.is(input.payloadJson, quoteHeavy(79));
  t.true(jsonBytes(input) <= COLLECTED_LIMITS.windowBytes, `an execution input of ${jsonBytes(input)} bytes`);
});

test('a call that fits no window is known before it is collected; one that fits does', (t) => {
  const templateBytes = jsonBytes(template);
  t.true(fitsAlone(templateBytes, collectedCallBytes(call(1))));
  // 400,000 escaped quotes: 800 KB sent, 1.6 MB as a JSON string, twice in the input (the batch entry and Trigger.Payload).
  const huge = call(2, `{"text": "${'\\"'.repeat(400_000)}"}`);
  t.false(fitsAlone(templateBytes, collectedCallBytes(huge)));
});

test('a window whose execution could not be started is tried again after a growing pause, before later windows, and takes no more calls', (t) => {
  const policy = { kind: 'batch', maxSize: 2, maxWaitMs: 60_000 } as const;
  const windows = new CollectorWindows(policy, template);
  windows.add(call(1, '{"n": 1}'), 0);
  windows.add(call(2, '{"n": 2}'), 0);
  const [failed] = windows.takeDue(10);
  windows.retryLater(failed!, 10);
  t.is(windows.nextDue(), 1010);
  t.is(windows.add(call(3, '{"n": 3}'), 20), 'exec-3', 'a new call opens a new window');
  t.deepEqual(windows.takeDue(1009), []);
  const [again] = windows.takeDue(1010);
  t.is(again, failed);
  windows.retryLater(again!, 1010);
  t.is(windows.nextDue(), 3010, 'twice as long the second time');
});
