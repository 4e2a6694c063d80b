import test from 'ava';
import type { ExecutionContext } from 'ava';
import jsonata from 'jsonata';
import {
  FormulaError,
  MAX_DEPTH,
  MAX_SEQUENCE_LENGTH,
  MAX_STEPS,
  MAX_STRING_LENGTH,
  resolveText,
  resolveValue,
} from '../../flow/formula/index.ts';
import type { FormulaContext } from '../../flow/formula/index.ts';
import { MAX_STRING_CHARS_PER_EVALUATION } from '../../flow/formula/evaluation-limits.ts';

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
  t.is(MAX_STRING_LENGTH, 10_000_000);
  t.is(MAX_STRING_CHARS_PER_EVALUATION, 20_000_000);
});

test('endless tail recursion stops at the step limit', async (t) => {
  const error = await t.throwsAsync(resolveValue('${ ($f := function($x){ $f($x) }; $f(1)) }', ctx), {
    instanceOf: FormulaError,
  });
  t.regex(error!.reason, /steps/);
  t.is(error!.formula, '${ ($f := function($x){ $f($x) }; $f(1)) }');
});

test('endless non-tail recursion stops at the depth limit', async (t) => {
  const error = await t.throwsAsync(resolveValue('${ ($f := function($x){ 1 + $f($x) }; $f(1)) }', ctx), {
    instanceOf: FormulaError,
  });
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

test('ordinary work well inside the limits still runs, also after a failure', async (t) => {
  await t.throwsAsync(resolveValue('${ ($f := function($x){ 1 + $f($x) }; $f(1)) }', ctx));
  t.is(await resolveValue('${ $sum([1..1000]) }', ctx), 500500);
  t.is(await resolveValue('${ ($fact := function($n){ $n <= 1 ? 1 : $n * $fact($n - 1) }; $fact(10)) }', ctx), 3628800);
  t.is(await resolveValue('${ $count([1..5000].($ * 2)) }', ctx), 5000);
});

/** The FormulaError a formula fails with. */
async function refusal(t: ExecutionContext, formula: string, context: FormulaContext = ctx): Promise<FormulaError> {
  const error = await t.throwsAsync(resolveValue(formula, context), { instanceOf: FormulaError });
  return error!;
}

test('native functions called by higher-order functions count as steps', async (t) => {
  // Each formula makes 300,000 or more native calls (or default-order comparisons)
  // but evaluates only a few dozen syntax nodes itself.
  const formulas = [
    '${ $map($map([1..150000], $string), $length) }',
    '${ $filter($filter([1..150000], $boolean), $boolean) }',
    '${ $reduce([1..150000], $power) + $reduce([1..150000], $power) }',
    '${ $map([1..600], function($i){ $count($map([1..600], $string)) }) }',
    '${ $count($map([1..150000], $string)) + $count($filter([1..150000], $boolean)) }',
    '${ $count($sort([1..150000])) }',
  ];
  for (const formula of formulas) {
    const error = await refusal(t, formula);
    t.regex(error.reason, /more than 200000 steps/, formula);
  }
});

test('higher-order functions still give the results plain JSONata gives', async (t) => {
  t.deepEqual(await resolveValue('${ $map([1,2,3], $string) }', ctx), ['1', '2', '3']);
  const data = {
    items: [
      { n: 'b', v: 2 },
      { n: 'a', v: 1 },
      { n: 'c', v: 3 },
    ],
    obj: { k: 'v', n: 2, z: null },
  };
  const withData: FormulaContext = { ...ctx, Trigger: { ...ctx.Trigger, Payload: data } };
  const expressions = [
    '$map([1,2,3], function($v, $i, $a){ $v * $i + $count($a) })',
    '$map(Trigger.Payload.items, function($it){ $uppercase($it.n) })',
    '$filter(Trigger.Payload.items, function($it){ $it.v >= 2 }).n',
    '$reduce([1..10], function($acc, $v){ $acc + $v })',
    '$reduce(Trigger.Payload.items, function($acc, $it){ $acc & $it.n }, ">")',
    '$sort(Trigger.Payload.items, function($l, $r){ $l.v > $r.v }).n',
    '$sort(["b", "c", "a"])',
    '$sort([3, 1, 2])',
    '$each(Trigger.Payload.obj, function($v, $k){ $k & "=" & $string($v) })',
    '$single(Trigger.Payload.items, function($it){ $it.n = "c" }).v',
    '$sift(Trigger.Payload.obj, function($v){ $exists($v) and $v != null })',
    '$sift(Trigger.Payload.obj, function($v, $k){ $k = "k" })',
    '["x", "y"] ~> $map($uppercase)',
    '($up := $map(?, function($s){ $uppercase($s) }); $up(["a", "b"]))',
    '($sum := $reduce(?, function($a, $b){ $a + $b }); $sum([1, 2, 3]))',
    '$map([[1, 2], [3]], $count)',
    'Trigger.Payload.items^(v).n',
  ];
  for (const expression of expressions) {
    const expected = JSON.parse(JSON.stringify((await jsonata(expression).evaluate(withData)) ?? null));
    t.deepEqual(await resolveValue(`\${${expression}}`, withData), expected, expression);
  }
  // Their argument checks are unchanged too.
  t.regex((await refusal(t, '${ $sort([{"a": 1}, 2]) }')).reason, /D3070/);
  t.regex((await refusal(t, '${ $reduce([1, 2], $string) }')).reason, /D3050/);
  t.regex((await refusal(t, '${ $single([1, 2], function($v){ true }) }')).reason, /D3138/);
});

test('many strings, each below the single-string limit, exceed the per-evaluation string budget', async (t) => {
  const secretCtx: FormulaContext = { ...ctx, Trigger: { ...ctx.Trigger, Payload: { note: 'secret-note' } } };
  const formulas = [
    // Each $pad result stays below MAX_STRING_LENGTH; together they would take ~450 MB.
    "${ $map([1..50], function($i){ $pad('', 9000000, 'x') }) }",
    "${ $map([1..50], function($i){ ($s := $pad(Trigger.Payload.note, 9000000, 'x'); $s) }) }",
    "${ $map(['', '', '', '', ''], $pad(?, 9000000, 'x')) }",
    "${ [$pad('', 9000000, 'a'), $pad('', 9000000, 'b'), $pad('', 9000000, 'c')] }",
    "${ ($s := $pad('', 6000000, 'x'); [$s & 'a', $s & 'b', $s & 'c', $s & 'd']) }",
  ];
  for (const formula of formulas) {
    const error = await refusal(t, formula, secretCtx);
    t.regex(error.reason, /strings built in one evaluation exceeded 20000000 characters/, formula);
    t.false(error.message.includes('secret-note'), 'the message does not quote payload data');
  }
});

test('a 1 MB payload string handed through several steps is not counted as new strings', async (t) => {
  const big = 'x'.repeat(1_000_000);
  // 40 copies handed on would be 40 MB if every value a call returns counted as new.
  const bigCtx: FormulaContext = { ...ctx, Trigger: { ...ctx.Trigger, Payload: { big, items: [1, 2, 3] } } };
  const formula = `\${ (
    $b := Trigger.Payload.big;
    $same := function($v){ $v };
    $c := $same($same($same($b)));
    $copies := $map([1..40], function($i){ $c });
    $kept := $filter($copies, function($v){ $v != "" });
    $last := $reduce($kept, function($acc, $v){ $v });
    $picked := $single($kept ~> $map(function($v, $i){ {"i": $i, "v": $v} }), function($o){ $o.i = 3 }).v;
    {"count": $count($kept), "same": $last = $b and $picked = $b, "upper": $length($uppercase($c)), "body": $c}
  ) }`;
  const value = (await resolveValue(formula, bigCtx)) as Record<string, unknown>;
  t.deepEqual(
    { ...value, body: (value.body as string).length },
    { count: 40, same: true, upper: 1_000_000, body: 1_000_000 },
  );
  const text = await resolveText(
    '<a>${ $xmlEscape(Trigger.Payload.big) }</a><b>{{Trigger.Payload.big}}</b>${ $count(Trigger.Payload.items) }',
    bigCtx,
  );
  t.is(text.length, 2_000_000 + 15);
});

test('$eval is disabled, however it is reached', async (t) => {
  const payloadCtx: FormulaContext = {
    ...ctx,
    Trigger: { ...ctx.Trigger, Payload: { formula: 'Company.Name & "-leak"' } },
  };
  const formulas = [
    '${ $eval("[1, 2]") }',
    '${ $eval(Trigger.Payload.formula) }',
    '${ $map([Trigger.Payload.formula], $eval) }',
    '${ ($e := $eval; $e(Trigger.Payload.formula)) }',
    '${ ($e := $eval(?); $e("1")) }',
    '${ Trigger.Payload.formula ~> $eval() }',
  ];
  for (const formula of formulas) {
    // Twice: the second evaluation gets the compiled expression from the cache.
    for (let round = 0; round < 2; round++) {
      const error = await refusal(t, formula, payloadCtx);
      t.is(error.reason, '$eval is disabled in flowhook formulas (payload values are data, never formulas)', formula);
      t.false(error.message.includes('leak'), 'the message does not quote payload data');
    }
  }
});
