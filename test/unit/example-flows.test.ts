// The example flows (examples/**/*.flow.yaml) are what `flowhook start` publishes, what the
// handbook shows and what users copy: every one must pass publish validation without an error
// or a warning, exactly as the CLI reads it and the engine receives it. Together they use every
// step kind and every verification scheme, so the flow file and verification scheme references
// (which quote them) have an example for each.
import test from 'ava';
import { toJson } from '@bufbuild/protobuf';
import { FlowSchema, StepSchema, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { parseFlowText } from '../../bin/cli/flow-file.ts';
import { DIRECT_SCHEME_NAMES } from '../../engine/domain/direct/verification/scheme-registry.ts';
import { validateFlow } from '../../flow/index.ts';
import {
  directSnippets,
  exampleFlowFiles,
  RECORD_OPERATIONS,
  recordOperationSnippets,
  stepSnippets,
} from '../../docs/tooling/flow-examples.ts';

const examples = exampleFlowFiles();

test('every example flow publishes without errors or warnings', (t) => {
  t.true(examples.length >= 10);
  for (const { path, text } of examples) {
    const flow = toJson(FlowSchema, parseFlowText(path, text)) as FlowJson;
    const { errors, warnings } = validateFlow(flow);
    t.deepEqual(errors, [], path);
    t.deepEqual(warnings, [], path);
  }
});

test('no two examples share a flow (company and name) or a webhook activity: applying one would move the other', (t) => {
  const byName = new Map<string, string>();
  const byActivity = new Map<string, string>();
  for (const { path, text } of examples) {
    const flow = parseFlowText(path, text);
    const name = `${flow.company}/${flow.name}`;
    t.is(byName.get(name), undefined, `${path} is flow ${name}, like ${byName.get(name)}`);
    byName.set(name, path);
    if (flow.trigger?.kind.case !== 'webhook') continue;
    const activity = `${flow.company}/${flow.trigger.kind.value.activity.toLowerCase()}`;
    t.is(byActivity.get(activity), undefined, `${path} has activity ${activity}, like ${byActivity.get(activity)}`);
    byActivity.set(activity, path);
  }
});

test('the examples use every step kind and every verification scheme', (t) => {
  const kinds = StepSchema.oneofs[0]!.fields.map((field) => field.jsonName);
  t.deepEqual(
    kinds.filter((kind) => !stepSnippets(examples).has(kind)),
    [],
    'add an example flow that uses it',
  );
  t.deepEqual(
    DIRECT_SCHEME_NAMES.filter((scheme) => !directSnippets(examples).has(scheme)),
    [],
    'add an example flow that uses it',
  );
});

test('the examples do every record operation, so the reference has an example of each', (t) => {
  t.deepEqual(
    RECORD_OPERATIONS.filter((operation) => !recordOperationSnippets(examples).has(operation)),
    [],
    'add a record step that does it to an example flow',
  );
});

test('a step quoted from an example is the step as written, at column 0', (t) => {
  const snippet = stepSnippets([
    {
      path: 'x.flow.yaml',
      text: 'steps:\n  - name: a\n    log:\n      message: hi   # a comment\n  - if:\n      condition: "${true}"\n      then:\n        - fail: { message: no }\n',
    },
  ]);
  t.is(snippet.get('log')?.text, '- name: a\n  log:\n    message: hi   # a comment');
  t.is(snippet.get('fail')?.text, '- fail: { message: no }');
});
