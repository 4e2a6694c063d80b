// The one helper tests wait with: it returns the awaited value, and a timeout
// says what was awaited and what was seen last.
import test from 'ava';
import { equalTo, eventually } from '../support/eventually.ts';

test('asks again until the value is the one awaited, and returns it', async (t) => {
  let calls = 0;
  const value = await eventually(async () => ++calls, { until: (n) => n >= 3, intervalMs: 1 });
  t.is(value, 3);
  t.is(calls, 3);
});

test('without `until` a truthy value ends the wait; equalTo compares deeply', async (t) => {
  const answers = [0, '', { ok: true }];
  t.deepEqual(await eventually(() => answers.shift(), { intervalMs: 1 }), { ok: true });
  const states = [{ current: 'a' }, { current: 'b', previous: 'a' }];
  t.deepEqual(
    await eventually(() => states.shift(), { until: equalTo({ current: 'b', previous: 'a' }), intervalMs: 1 }),
    { current: 'b', previous: 'a' },
  );
});

test('on timeout it throws, naming what it waited for and what it saw last', async (t) => {
  let status = 200;
  const error = await t.throwsAsync(
    eventually(() => status++, {
      until: (s) => s === 401,
      timeoutMs: 50,
      intervalMs: 5,
      what: 'the revoked key refused',
    }),
  );
  t.regex(error.message, /^the revoked key refused: not within 50 ms; last saw 2\d\d$/);
  const shown = await t.throwsAsync(
    eventually(() => 'x'.repeat(5000), {
      until: () => false,
      timeoutMs: 1,
      show: (text) => `${text.length} characters`,
    }),
  );
  t.regex(shown.message, /last saw 5000 characters$/);
  const long = await t.throwsAsync(eventually(() => 'y'.repeat(5000), { until: () => false, timeoutMs: 1 }));
  t.true(long.message.length < 2200, 'a long value is shortened');
});

test('a probe that throws ends the wait with its error', async (t) => {
  let calls = 0;
  await t.throwsAsync(
    eventually(() => {
      calls++;
      throw new Error('the process exited');
    }),
    { message: 'the process exited' },
  );
  t.is(calls, 1);
});
