// Publish-time reference checks: unknown functions and paths that cannot
// exist are errors naming the field; names JSONata reads from a payload item
// are not checked; the known-name lists match what formulas really see.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { evaluateFormula } from '../../flow/formula/index.ts';
import { didYouMean } from '../../flow/formula/did-you-mean.ts';
import {
  FLOWHOOK_FUNCTIONS,
  FORMULA_ROOTS,
  JSONATA_FUNCTIONS,
  REFUSED_FUNCTIONS,
} from '../../flow/formula/formula-names.ts';
import type { FormulaContext } from '../../flow/formula/index.ts';
import { validateFlow } from '../../flow/index.ts';
import type { FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';

const flowWith = (steps: unknown[]): FlowJson =>
  ({ company: 'C', name: 'f', trigger: { webhook: { activity: 'a' } }, steps }) as FlowJson;
const errorsOf = (steps: unknown[]) => validateFlow(flowWith(steps)).errors;
const logging = (message: string) => [{ name: 'order', set: { variables: { id: '1' } } }, { log: { message } }];
const errorsIn = (message: string) => errorsOf(logging(message));

test('a call to a function that does not exist is refused with a suggestion', (t) => {
  const errors = errorsIn('${ $exist(Trigger.Payload.x) }');
  t.is(errors.length, 1);
  t.regex(errors[0]!, /^steps\[1\]\.log\.message: .*unknown function \$exist \(did you mean \$exists\?\)/);
  t.deepEqual(errorsOf([{ set: { variables: { total: '${ $sun(Trigger.Payload.lines.amount) }' } } }]), [
    'steps[0].set.variables.total: Formula "${ $sun(Trigger.Payload.lines.amount) }" failed: unknown function $sun (did you mean $sum?)',
  ]);
  t.regex(errorsIn('${ $frobnicate(1) }')[0]!, /unknown function \$frobnicate$/, 'no suggestion when nothing is close');
});

test("built-ins, flowhook's own functions and functions the formula binds are accepted", (t) => {
  t.deepEqual(errorsIn('${ $uppercase($string($count(Trigger.Payload.items))) }'), []);
  t.deepEqual(errorsIn('${ $xmlEscape(Trigger.Payload.name) }'), []);
  t.deepEqual(errorsIn('${ ($double := function($v){ $v * 2 }; $double(Variables.n)) }'), []);
  t.deepEqual(errorsIn('${ (function($f){ $f(1) })($string) }'), [], 'a lambda parameter may be called');
  t.deepEqual(errorsIn('${ $map(Trigger.Payload.items, function($v, $i){ $v.price }) }'), []);
  t.deepEqual(
    errorsIn('${ Trigger.Payload ~> $keys() } ${ Trigger.Payload ~> $keys } ${ $substring(?, 0, 2)("abc") }'),
    [],
  );
  t.deepEqual(errorsIn('${ $now() & $millis() }'), []);
});

test('calls are checked everywhere: lambdas, filters, groupings, sort terms, transforms and `~>`', (t) => {
  for (const formula of [
    '${ $map(Trigger.Payload.items, function($v){ $exist($v) }) }',
    '${ Trigger.Payload.items[$exist(sku)] }',
    '${ Trigger.Payload.items{ sku: $exist(qty) } }',
    '${ Trigger.Payload.items^($exist(price)) }',
    '${ Trigger.Payload ~> |items|{ "seen": $exist(sku) }| }',
    '${ Trigger.Payload.items ~> $exist }',
    '${ $string(1)[$exist(1)] }',
  ]) {
    t.regex(errorsIn(formula)[0] ?? '', /unknown function \$exist \(did you mean \$exists\?\)/, formula);
  }
  t.regex(
    errorsIn('${ ($f := function($x){ $x }; $ff(1)) }')[0]!,
    /unknown function \$ff \(did you mean \$f\?\)/,
    'bound names are suggested too',
  );
});

test('$eval is refused at publish as it is at run time, unless the formula binds its own', (t) => {
  t.regex(errorsIn('${ $eval(Trigger.Payload.code) }')[0]!, /\$eval is disabled/);
  t.deepEqual(errorsIn('${ ($eval := function(){ 1 }; $eval()) }'), []);
});

test('paths from the root must exist: unknown roots, Trigger members and step names', (t) => {
  t.regex(
    errorsIn('${ Trigger.Paylod.id }')[0]!,
    /"Trigger\.Paylod" does not exist: Trigger has Payload, PayloadJson, Activity, Description, Body, BodyEncoding, Json, Form, Headers, Query, Method, Provider, Coalesced, Batch \(did you mean "Trigger\.Payload"\?\)/,
  );
  t.regex(
    errorsIn('${ Varaibles.x }')[0]!,
    /unknown name "Varaibles": formulas read Trigger, Variables, Steps, Execution, Company, Callbacks \(did you mean "Variables"\?\)/,
  );
  t.regex(
    errorsIn('${ trigger.payload.id }')[0]!,
    /unknown name "trigger".*\(did you mean "Trigger"\?\)/,
    'names are case-sensitive',
  );
  t.regex(
    errorsIn('${ Steps.ordr.id }')[0]!,
    /"Steps\.ordr": no step of this flow is named "ordr"; the named steps are "order" \(did you mean "Steps\.order"\?\)/,
  );
  t.regex(
    errorsIn('${ [Execution.Idd, Company.Nam] }').join('\n'),
    /"Execution\.Idd" does not exist.*\n.*"Company\.Nam" does not exist/,
  );
  t.regex(
    errorsIn('{{Trigger.Paylod.id}}')[0]!,
    /Formula "\{\{Trigger\.Paylod\.id\}\}" failed: "Trigger\.Paylod" does not exist/,
  );
  t.regex(errorsIn('{{Stepz.order.id}}')[0]!, /unknown name "Stepz".*\(did you mean "Steps"\?\)/);
  t.deepEqual(
    errorsIn(
      '${ Steps.order.id } {{Execution.Id}} ${Company.Name} ${Trigger.Activity & Trigger.Description} ${Variables.id.deep}',
    ),
    [],
  );
});

test('`$` at the root and `$$` anywhere are the root object', (t) => {
  t.regex(errorsIn('${ $.Trigger.Paylod }')[0]!, /"Trigger\.Paylod" does not exist/);
  t.regex(errorsIn('${ $$.Trigger.Paylod }')[0]!, /"Trigger\.Paylod" does not exist/);
  t.regex(errorsIn('${ Trigger.Payload.items[$$.Trigger.Paylod = sku] }')[0]!, /"Trigger\.Paylod" does not exist/);
  t.deepEqual(errorsIn('${ $.Trigger.Payload } ${ Trigger.Payload.items[sku = $$.Trigger.Payload.sku].$.qty }'), []);
});

test('names JSONata reads from a payload item are not checked', (t) => {
  t.deepEqual(errorsIn('${ Trigger.Payload.items[price > 10].sku }'), []);
  t.deepEqual(errorsIn('${ Trigger.Payload.items.{ "sku": sku, "n": qty } }'), []);
  t.deepEqual(errorsIn('${ Trigger.Payload.items{ sku: qty }^(>price) }'), []);
  t.deepEqual(
    errorsIn('${ Trigger.Payload.items.($map(lines, function($l){ sku })) }'),
    [],
    'a function written inside a path reads its item',
  );
});

test("a function written at the root reads the root in its body (JSONata's rule), with a hint", async (t) => {
  const formula = '$map(Trigger.Payload.items, function($v){ price })';
  // What makes this an error: the body sees the root, not the item.
  const context: FormulaContext = {
    Trigger: { Payload: { items: [{ price: 1 }] }, PayloadJson: '', Activity: 'a', Description: '' },
    Variables: {},
    Steps: {},
    Execution: { Id: 'x', StartedAt: '' },
    Company: { Name: 'C' },
  };
  t.is(await evaluateFormula(formula, context), null);
  t.is(await evaluateFormula('$map(Trigger.Payload.items, function($v){ $v.price })', context), 1);
  t.regex(
    errorsIn(`\${ ${formula} }`)[0]!,
    /unknown name "price": .*; a function's body reads from the root too, not from its argument: to read the argument write \$v\.price$/,
  );
  t.regex(
    errorsIn('${ $map(Trigger.Payload.items, function($v){ Trigger.Paylod }) }')[0]!,
    /"Trigger\.Paylod" does not exist/,
  );
});

test('checks reach nested steps, conditions and record fields, and step names anywhere in the flow count', (t) => {
  const errors = errorsOf([
    { if: { condition: '${ $exits(Steps.later) }', then: [{ name: 'later', log: { message: 'x' } }] } },
    { record: { table: 't', key: '${ Trigger.Payload.id }', upsert: { status: '${ Trigger.Paylaod.s }' } } },
  ]);
  t.is(errors.length, 2, errors.join('\n'));
  t.regex(errors[0]!, /^steps\[0\]\.if\.condition: .*unknown function \$exits/);
  t.regex(errors[1]!, /^steps\[1\]\.record\.upsert\.status: .*"Trigger\.Paylaod" does not exist/);
});

test('a variable that no set step sets is a warning, not an error', (t) => {
  const problems = validateFlow(
    flowWith([
      { set: { variables: { total: '1' } } },
      { log: { message: '${Variables.totl} {{Variables.total}} ${Variables.other}' } },
    ]),
  );
  t.deepEqual(problems.errors, []);
  t.deepEqual(
    problems.warnings.filter((w) => w.includes('Variables.')),
    [
      'steps[1].log.message: Variables.totl is read, but no set step sets it (did you mean Variables.total?): it is empty at run time; the set steps set total',
      'steps[1].log.message: Variables.other is read, but no set step sets it: it is empty at run time; the set steps set total',
    ],
  );
});

test('the known JSONata functions are exactly those of the installed jsonata', (t) => {
  const require = createRequire(import.meta.url);
  const source = readFileSync(require.resolve('jsonata'), 'utf8');
  const bound = [...source.matchAll(/staticFrame\.bind\('([A-Za-z0-9]+)'/g)].map((match) => match[1]);
  t.deepEqual(
    [...JSONATA_FUNCTIONS].filter((name) => name !== 'now' && name !== 'millis').sort(),
    [...new Set(bound)].sort(),
  );
});

test('every known function is a function in a flowhook formula, and the refused ones refuse', async (t) => {
  const context = {
    Trigger: { Payload: {}, PayloadJson: '{}', Activity: 'a', Description: '' },
    Variables: {},
    Steps: {},
    Execution: { Id: 'x', StartedAt: '' },
    Company: { Name: 'C' },
    Callbacks: {},
  };
  for (const name of [...JSONATA_FUNCTIONS, ...FLOWHOOK_FUNCTIONS])
    t.is(await evaluateFormula(`$type($${name})`, context), 'function', name);
  for (const [name, reason] of Object.entries(REFUSED_FUNCTIONS))
    await t.throwsAsync(evaluateFormula(`$${name}("1")`, context), {
      message: new RegExp(reason.replace(/[$()]/g, '\\$&')),
    });
  t.deepEqual(Object.keys(FORMULA_ROOTS), Object.keys(context));
});

test('did-you-mean: closest within a tolerance that grows with the length, case ignored', (t) => {
  const quote = (name: string) => `"${name}"`;
  t.is(didYouMean('Paylod', ['Payload', 'PayloadJson'], quote), ' (did you mean "Payload"?)');
  t.is(didYouMean('EXISTS', ['exists'], quote), ' (did you mean "exists"?)');
  t.is(didYouMean('ab', ['xy'], quote), '');
  t.is(didYouMean('anything', [], quote), '');
});
