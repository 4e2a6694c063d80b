import test from 'ava';
import type { FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { validateFlow } from '../../workflows/shared/index.ts';

const base = (webhook: Record<string, unknown>, steps: unknown[]): FlowJson =>
  ({ company: 'Acme', name: 'f', trigger: { webhook: { activity: 'a.b', ...webhook } }, steps }) as FlowJson;
const sync = { responseMode: 'WAIT_FOR_RESPONSE_STEP' };

test('a well-formed flow has no problems', (t) => {
  const problems = validateFlow(base(sync, [{ set: { variables: { x: '${Trigger.Payload.a}' } } }, { respond: { statusCode: 201, body: '{{Variables.x}}' } }, { sleep: { duration: '1m30s' } }]));
  t.deepEqual(problems, { errors: [], warnings: [] });
});

test('status codes outside 200..599 are rejected, 1xx included, with the field named', (t) => {
  for (const code of [100, 199, 600, 200.5]) {
    const { errors } = validateFlow(base(sync, [{ respond: { statusCode: code } }]));
    t.true(errors.some((e) => e.startsWith('steps[0].respond.statusCode:')), `${code}: ${errors.join('; ')}`);
  }
  t.deepEqual(validateFlow(base(sync, [{ respond: { statusCode: 599 } }])).errors, []);
  t.true(validateFlow(base({ defaultResponseStatusCode: 150 }, [])).errors.some((e) => e.startsWith('trigger.webhook.defaultResponseStatusCode')));
});

test('missing activity, trigger, bad duration and malformed formulas are errors', (t) => {
  t.true(validateFlow(base({ activity: '' }, [])).errors.includes('trigger.webhook.activity: required'));
  t.true(validateFlow({ company: 'A', name: 'n' } as FlowJson).errors.some((e) => e.startsWith('trigger.webhook')));
  t.true(validateFlow(base(sync, [{ sleep: { duration: '5 parsecs' } }])).errors.some((e) => e.startsWith('steps[0].sleep.duration')));
  t.true(validateFlow(base(sync, [{ respond: { body: '${Variables.x +}' } }])).errors.some((e) => e.startsWith('steps[0].respond.body')));
  t.true(validateFlow(base(sync, [{ if: { condition: '${true}', then: [{ log: { message: '${(}' } }] } }])).errors.some((e) => e.startsWith('steps[0].if.then[0].log.message')));
  t.true(validateFlow(base(sync, [{}])).errors.some((e) => e.startsWith('steps[0]: has no step type')));
  t.true(validateFlow(base({ ...sync, syncTimeoutSeconds: 0 }, [])).errors.some((e) => e.startsWith('trigger.webhook.syncTimeoutSeconds')));
});

test('a deferral that can run before any respond step in sync mode is a warning, not an error', (t) => {
  const early = validateFlow(base(sync, [{ sleep: { duration: '1s' } }, { respond: { statusCode: 200 } }]));
  t.deepEqual(early.errors, []);
  t.true(early.warnings.some((w) => w.startsWith('steps[0].sleep:')));

  const oneBranch = validateFlow(base(sync, [{ if: { condition: '${true}', then: [{ respond: {} }], else: [] } }, { waitUntil: { until: '2030-01-01T00:00:00Z' } }]));
  t.true(oneBranch.warnings.some((w) => w.startsWith('steps[1].waitUntil:')), 'only one branch responded');

  const bothBranches = validateFlow(base(sync, [{ if: { condition: '${true}', then: [{ respond: {} }], else: [{ respond: {} }] } }, { sleep: { duration: '1s' } }]));
  t.deepEqual(bothBranches.warnings, []);

  const instant = validateFlow(base({}, [{ sleep: { duration: '1s' } }]));
  t.deepEqual(instant.warnings, [], 'instant mode has no sync window');
});
