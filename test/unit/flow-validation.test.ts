import test from 'ava';
import type { FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { validateFlow } from '../../flow/index.ts';

const base = (webhook: Record<string, unknown>, steps: unknown[]): FlowJson =>
  ({ company: 'Acme', name: 'f', trigger: { webhook: { activity: 'a.b', ...webhook } }, steps }) as FlowJson;
const sync = { responseMode: 'WAIT_FOR_RESPONSE_STEP' };

test('a well-formed flow has no problems', (t) => {
  const problems = validateFlow(
    base(sync, [
      { set: { variables: { x: '${Trigger.Payload.a}' } } },
      { respond: { statusCode: 201, body: '{{Variables.x}}' } },
      { sleep: { duration: '1m30s' } },
    ]),
  );
  t.deepEqual(problems, { errors: [], warnings: [] });
});

test('status codes outside 200..599 are rejected, 1xx included, with the field named', (t) => {
  for (const code of [100, 199, 600, 200.5]) {
    const { errors } = validateFlow(base(sync, [{ respond: { statusCode: code } }]));
    t.true(
      errors.some((e) => e.startsWith('steps[0].respond.statusCode:')),
      `${code}: ${errors.join('; ')}`,
    );
  }
  t.deepEqual(validateFlow(base(sync, [{ respond: { statusCode: 599 } }])).errors, []);
  t.true(
    validateFlow(base({ defaultResponseStatusCode: 150 }, [])).errors.some((e) =>
      e.startsWith('trigger.webhook.defaultResponseStatusCode'),
    ),
  );
});

test('missing activity, trigger, bad duration and malformed formulas are errors', (t) => {
  t.true(validateFlow(base({ activity: '' }, [])).errors.includes('trigger.webhook.activity: required'));
  t.true(validateFlow({ company: 'A', name: 'n' } as FlowJson).errors.some((e) => e.startsWith('trigger.webhook')));
  t.true(
    validateFlow(base(sync, [{ sleep: { duration: '5 parsecs' } }])).errors.some((e) =>
      e.startsWith('steps[0].sleep.duration'),
    ),
  );
  t.true(
    validateFlow(base(sync, [{ respond: { body: '${Variables.x +}' } }])).errors.some((e) =>
      e.startsWith('steps[0].respond.body'),
    ),
  );
  t.true(
    validateFlow(base(sync, [{ if: { condition: '${true}', then: [{ log: { message: '${(}' } }] } }])).errors.some(
      (e) => e.startsWith('steps[0].if.then[0].log.message'),
    ),
  );
  t.true(validateFlow(base(sync, [{}])).errors.some((e) => e.startsWith('steps[0]: has no step type')));
  t.true(
    validateFlow(base({ ...sync, syncTimeoutSeconds: 0 }, [])).errors.some((e) =>
      e.startsWith('trigger.webhook.syncTimeoutSeconds'),
    ),
  );
});

test('a deferral that can run before any respond step in sync mode is a warning, not an error', (t) => {
  const early = validateFlow(base(sync, [{ sleep: { duration: '1s' } }, { respond: { statusCode: 200 } }]));
  t.deepEqual(early.errors, []);
  t.true(early.warnings.some((w) => w.startsWith('steps[0].sleep:')));

  const oneBranch = validateFlow(
    base(sync, [
      { if: { condition: '${true}', then: [{ respond: {} }], else: [] } },
      { waitUntil: { until: '2030-01-01T00:00:00Z' } },
    ]),
  );
  t.true(
    oneBranch.warnings.some((w) => w.startsWith('steps[1].waitUntil:')),
    'only one branch responded',
  );

  const bothBranches = validateFlow(
    base(sync, [
      { if: { condition: '${true}', then: [{ respond: {} }], else: [{ respond: {} }] } },
      { sleep: { duration: '1s' } },
    ]),
  );
  t.deepEqual(bothBranches.warnings, []);

  const instant = validateFlow(base({}, [{ sleep: { duration: '1s' } }]));
  t.deepEqual(instant.warnings, [], 'instant mode has no sync window');
});

test('record steps: table, key, exactly one operation, fields and expectedVersion are checked', (t) => {
  const errorsOf = (record: Record<string, unknown>) => validateFlow(base({}, [{ record }])).errors;
  t.deepEqual(
    errorsOf({
      table: 'invoice',
      key: '${Trigger.Payload.id}',
      modify: { status: 'paid' },
      expectedVersion: '${Variables.v}',
    }),
    [],
  );
  t.deepEqual(errorsOf({ table: 'invoice', key: 'INV-1', get: { allowMissing: true } }), []);
  t.deepEqual(errorsOf({ table: 'invoice', key: 'INV-1', delete: {} }), []);
  t.true(errorsOf({ key: 'k', get: {} }).includes('steps[0].record.table: required'));
  t.true(errorsOf({ table: 'in voice', key: 'k', get: {} }).some((e) => e.startsWith('steps[0].record.table: 1..100')));
  t.true(errorsOf({ table: 'invoice', get: {} }).includes('steps[0].record.key: required'));
  t.true(errorsOf({ table: 'invoice', key: '${(}', get: {} }).some((e) => e.startsWith('steps[0].record.key:')));
  t.true(errorsOf({ table: 'invoice', key: 'k' }).some((e) => e.startsWith('steps[0].record: exactly one operation')));
  t.true(
    errorsOf({ table: 'invoice', key: 'k', get: {}, delete: {} }).some((e) =>
      e.startsWith('steps[0].record: exactly one operation'),
    ),
  );
  t.true(errorsOf({ table: 'invoice', key: 'k', insert: {} }).includes('steps[0].record.insert: at least one field'));
  t.true(
    errorsOf({ table: 'invoice', key: 'k', upsert: { total: '${1 +}' } }).some((e) =>
      e.startsWith('steps[0].record.upsert.total:'),
    ),
  );
  t.true(
    errorsOf({ table: 'invoice', key: 'k', insert: { a: 1 }, expectedVersion: '2' }).includes(
      'steps[0].record.expectedVersion: only for modify, upsert and delete',
    ),
  );
});
