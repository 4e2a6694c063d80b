import test from 'ava';
import { FormulaError, MAX_DEPTH, MAX_SEQUENCE_LENGTH, MAX_STEPS, resolveValue } from '../../workflows/formula/index.ts';
import type { FormulaContext } from '../../workflows/formula/index.ts';

// The workflow clock is frozen, so these limits are counted, not timed; the
// tests assert the outcome (a FormulaError), never how long it took.

const ctx: FormulaContext = {
  Trigger: { Payload: {}, PayloadJson: '{}', Activity: 'a', Description: '' },
  Variables: {},
  Steps: {},
  Execution: { Id: 'e', StartedAt: '' },
  Company: { Name: 'c' },
};

test('the limits are the documented constants', (t) => {
  t.is(MAX_DEPTH, 200);
  t.is(MAX_STEPS, 200_000);
  t.is(MAX_SEQUENCE_LENGTH, 200_000);
});

test('endless tail recursion stops at the step limit', async (t) => {
  const error = await t.throwsAsync(resolveValue('${ ($f := function($x){ $f($x) }; $f(1)) }', ctx), { instanceOf: FormulaError });
  t.regex(error!.reason, /steps/);
  t.is(error!.formula, '${ ($f := function($x){ $f($x) }; $f(1)) }');
});

test('endless non-tail recursion stops at the depth limit', async (t) => {
  const error = await t.throwsAsync(resolveValue('${ ($f := function($x){ 1 + $f($x) }; $f(1)) }', ctx), { instanceOf: FormulaError });
  t.regex(error!.reason, /recursion deeper/);
});

test('a huge range fails instead of looping natively', async (t) => {
  const error = await t.throwsAsync(resolveValue('${ $sum([1..10000000]) }', ctx), { instanceOf: FormulaError });
  t.regex(error!.reason, /sequence/);
});

test('a string that keeps doubling is stopped', async (t) => {
  const doubling = '${ ($f := function($s, $n){ $n = 0 ? $s : $f($s & $s, $n - 1) }; $length($f("ab", 40))) }';
  const error = await t.throwsAsync(resolveValue(doubling, ctx), { instanceOf: FormulaError });
  t.regex(error!.reason, /string/);
});

test('$eval runs under the same limits', async (t) => {
  await t.throwsAsync(resolveValue('${ $eval("($f := function($x){ 1 + $f($x) }; $f(1))") }', ctx), { instanceOf: FormulaError });
  t.deepEqual(await resolveValue('${ $eval("[1, 2]") }', ctx), [1, 2]);
});

test('ordinary work well inside the limits still runs, also after a failure', async (t) => {
  await t.throwsAsync(resolveValue('${ ($f := function($x){ 1 + $f($x) }; $f(1)) }', ctx));
  t.is(await resolveValue('${ $sum([1..1000]) }', ctx), 500500);
  t.is(await resolveValue('${ ($fact := function($n){ $n <= 1 ? 1 : $n * $fact($n - 1) }; $fact(10)) }', ctx), 3628800);
  t.is(await resolveValue('${ $count([1..5000].($ * 2)) }', ctx), 5000);
});
