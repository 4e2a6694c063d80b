// Publish-time reference checks: unknown functions and paths that cannot
// exist are errors naming the field; names relative to a payload item are not
// checked; the known-function list matches the installed jsonata.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { JSONATA_FUNCTIONS } from '../../workflows/formula/formula-references.ts';
import { validateFlow } from '../../workflows/shared/index.ts';
import type { FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';

const flowWith = (steps: unknown[]): FlowJson => ({ company: 'C', name: 'f', trigger: { webhook: { activity: 'a' } }, steps }) as FlowJson;
const errorsOf = (steps: unknown[]) => validateFlow(flowWith(steps)).errors;
const logging = (message: string) => [{ name: 'order', set: { variables: { id: '1' } } }, { log: { message } }];

test('a call to a function that does not exist is refused with a suggestion', (t) => {
  const errors = errorsOf(logging('${ $exist(Trigger.Payload.x) }'));
  t.is(errors.length, 1);
  t.regex(errors[0]!, /^steps\[1\]\.log\.message: .*unknown function \$exist \(did you mean \$exists\?\)/);
});

test("built-ins, flowhook's own functions and functions the formula binds are accepted", (t) => {
  t.deepEqual(errorsOf(logging('${ $uppercase($string($count(Trigger.Payload.items))) }')), []);
  t.deepEqual(errorsOf(logging('${ $xmlEscape(Trigger.Payload.name) }')), []);
  t.deepEqual(errorsOf(logging('${ ($double := function($v){ $v * 2 }; $double(Variables.n)) }')), []);
  t.deepEqual(errorsOf(logging('${ $map(Trigger.Payload.items, function($v, $i){ $v.price }) }')), []);
  t.deepEqual(errorsOf(logging('${ Trigger.Payload ~> $keys() }')), []);
});

test('$eval is refused at publish as it is at run time', (t) => {
  t.regex(errorsOf(logging('${ $eval(Trigger.Payload.code) }'))[0]!, /\$eval is disabled/);
});

test('paths from the root must exist: unknown roots, Trigger members and step names', (t) => {
  t.regex(errorsOf(logging('${ Trigger.Paylod.id }'))[0]!, /"Trigger\.Paylod" does not exist: Trigger has Payload, PayloadJson, Activity, Description \(did you mean "Trigger\.Payload"\?\)/);
  t.regex(errorsOf(logging('${ Varaibles.x }'))[0]!, /unknown name "Varaibles": formulas read Trigger, Variables, Steps, Execution, Company \(did you mean "Variables"\?\)/);
  t.regex(errorsOf(logging('${ Steps.ordr.id }'))[0]!, /"Steps\.ordr": no step of this flow is named "ordr"; the named steps are "order" \(did you mean "Steps\.order"\?\)/);
  t.regex(errorsOf(logging('{{Trigger.Paylod.id}}'))[0]!, /Formula "\{\{Trigger\.Paylod\.id\}\}" failed: "Trigger\.Paylod" does not exist/);
  t.deepEqual(errorsOf(logging('${ Steps.order.id } {{Execution.Id}} ${Company.Name} ${Variables.anything.goes}')), []);
});

test('names relative to a payload item are not checked', (t) => {
  t.deepEqual(errorsOf(logging('${ Trigger.Payload.items[price > 10].sku }')), []);
  t.deepEqual(errorsOf(logging('${ Trigger.Payload.items.{ "sku": sku, "n": qty } }')), []);
  t.deepEqual(errorsOf(logging('${ $.Trigger.Payload }')), []);
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

test('the known JSONata functions are exactly those of the installed jsonata', (t) => {
  const require = createRequire(import.meta.url);
  const source = readFileSync(require.resolve('jsonata'), 'utf8');
  const bound = [...source.matchAll(/staticFrame\.bind\('([A-Za-z0-9]+)'/g)].map((match) => match[1]);
  t.deepEqual([...JSONATA_FUNCTIONS].filter((name) => name !== 'now' && name !== 'millis').sort(), [...new Set(bound)].sort());
});

test('a variable that no set step sets is a warning, not an error', (t) => {
  const problems = validateFlow(flowWith([{ set: { variables: { total: '1' } } }, { log: { message: '${Variables.totl} {{Variables.total}}' } }]));
  t.deepEqual(problems.errors, []);
  t.deepEqual(problems.warnings.filter((w) => w.startsWith('Variables.')), ['Variables.totl is read, but no set step sets it (it is empty at run time; set: total)']);
});
