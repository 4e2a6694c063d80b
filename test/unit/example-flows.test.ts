// The example flows are what `flowhook start` publishes and what users copy:
// every one must pass publish validation, including the formula reference
// checks, exactly as the CLI reads it and the engine receives it.
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { toJson } from '@bufbuild/protobuf';
import { FlowSchema, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { parseFlowText } from '../../bin/cli/flow-file.ts';
import { validateFlow } from '../../workflows/shared/index.ts';

const EXAMPLES_DIR = new URL('../../engine/examples/', import.meta.url);
const examples = readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.flow.yaml'));

test('every example flow publishes without errors, and reads no variable it never sets', (t) => {
  t.true(examples.length >= 4);
  for (const name of examples) {
    const flow = toJson(FlowSchema, parseFlowText(name, readFileSync(new URL(name, EXAMPLES_DIR), 'utf8'))) as FlowJson;
    const { errors, warnings } = validateFlow(flow);
    t.deepEqual(errors, [], name);
    t.deepEqual(warnings.filter((warning) => warning.startsWith('Variables.')), [], name);
  }
});
