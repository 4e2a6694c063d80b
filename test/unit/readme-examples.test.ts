// The README's step examples are what new users copy: they must parse as a
// flow file and pass publish validation, so a renamed field or a stricter
// check cannot leave the documentation wrong.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { fromJson, toJson } from '@bufbuild/protobuf';
import { parse } from 'yaml';
import { FlowSchema, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { validateFlow } from '../../workflows/shared/index.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

function yamlBlocks(): string[] {
  return [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

test('the one-example-per-step-kind block parses and publishes without errors', (t) => {
  const block = yamlBlocks().find((text) => text.startsWith('steps:\n  - respond:'));
  t.truthy(block, 'the README lost its step examples');
  const document = { company: 'Default', name: 'readme-steps', trigger: { webhook: { activity: 'readme.steps' } }, ...parse(block!) };
  const flow = toJson(FlowSchema, fromJson(FlowSchema, document)) as FlowJson;
  const kinds = new Set<string>();
  const collect = (steps: FlowJson['steps']) =>
    (steps ?? []).forEach((step) => {
      for (const key of Object.keys(step)) if (key !== 'name') kinds.add(key);
      collect(step.if?.then);
      collect(step.if?.else);
    });
  collect(flow.steps);
  t.deepEqual([...kinds].sort(), ['fail', 'httpRequest', 'if', 'log', 'record', 'respond', 'set', 'sleep', 'waitForCallback', 'waitUntil']);
  t.deepEqual(validateFlow(flow).errors, []);
});

test('the flow file example under "Flows as code" publishes without errors', (t) => {
  const block = yamlBlocks().find((text) => text.startsWith('company: Default\nname: payment-callback'));
  t.truthy(block);
  const flow = toJson(FlowSchema, fromJson(FlowSchema, parse(block!))) as FlowJson;
  t.deepEqual(validateFlow(flow).errors, []);
});

test('the "Stripe → flowhook" walkthrough flow publishes without errors or warnings', (t) => {
  // Indented under a numbered step in the README: strip the list indentation before parsing.
  const block = yamlBlocks()
    .map((text) => text.replace(/^ {3}/gm, ''))
    .find((text) => text.startsWith('company: Default\nname: stripe-payments'));
  t.truthy(block, 'the README lost its Stripe walkthrough flow');
  const flow = toJson(FlowSchema, fromJson(FlowSchema, parse(block!))) as FlowJson;
  const { errors, warnings } = validateFlow(flow);
  t.deepEqual(errors, []);
  t.deepEqual(warnings, []);
  t.is(flow.trigger?.webhook?.direct?.verify?.stripe !== undefined, true);
});
