// The flow-control documentation's examples are what users copy: each is a
// file in examples/flow-control/ that must publish without a problem, and the
// page shows each file exactly as it is, so the two cannot drift apart.
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { toJson } from '@bufbuild/protobuf';
import { FlowSchema, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { parseFlowText } from '../../bin/cli/flow-file.ts';
import { validateFlow } from '../../flow/index.ts';

const EXAMPLES = new URL('../../examples/flow-control/', import.meta.url);
const examples = readdirSync(EXAMPLES)
  .filter((name) => name.endsWith('.flow.yaml'))
  .sort();
const page = readFileSync(new URL('../../docs/how-to/control-how-calls-become-executions.md', import.meta.url), 'utf8');

test('every flow-control example publishes without errors or warnings, and together they use every control', (t) => {
  const used = new Set<string>();
  for (const name of examples) {
    const flow = toJson(FlowSchema, parseFlowText(name, readFileSync(new URL(name, EXAMPLES), 'utf8'))) as FlowJson;
    t.deepEqual(validateFlow(flow), { errors: [], warnings: [] }, name);
    for (const field of [
      'concurrency',
      'throttle',
      'debounce',
      'batch',
      'idempotencyKey',
      'idempotencyWindow',
      'priority',
    ]) {
      if (flow.trigger?.webhook?.[field as keyof typeof flow.trigger.webhook] !== undefined) used.add(field);
    }
  }
  t.deepEqual([...used].sort(), [
    'batch',
    'concurrency',
    'debounce',
    'idempotencyKey',
    'idempotencyWindow',
    'priority',
    'throttle',
  ]);
});

test('the flow-control how-to shows each example file exactly, names it, and the README and the handbook index link the page', (t) => {
  for (const name of examples) {
    const text = readFileSync(new URL(name, EXAMPLES), 'utf8');
    t.true(
      page.includes(`<!-- BEGIN EXAMPLE: examples/flow-control/${name} `) && page.includes(`\`\`\`yaml\n${text}\`\`\``),
      `${name} is included as it is (npm run docs)`,
    );
  }
  t.true(
    readFileSync(new URL('../../README.md', import.meta.url), 'utf8').includes(
      '(docs/how-to/control-how-calls-become-executions.md)',
    ),
  );
  t.true(
    readFileSync(new URL('../../docs/README.md', import.meta.url), 'utf8').includes(
      '(how-to/control-how-calls-become-executions.md)',
    ),
  );
});
