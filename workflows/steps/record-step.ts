// record: one operation on the company's record store (get, insert, modify,
// upsert, delete), made by the record activity through the engine. Like
// httpRequest, its activity options are part of the workflow history.
import type { RecordStepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { RecordOperation } from '../activities/index.ts';
import { resolveDeep, resolveValue } from '../formula/index.ts';
import { checkDeep, checkText } from '../shared/field-checks.ts';
import { StepFailure } from '../interpreter/step-errors.ts';
import type { StepModule, StepValidation } from './step-module.ts';

const TABLE_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const RECORD_OPERATIONS = ['get', 'insert', 'modify', 'upsert', 'delete'] as const satisfies readonly RecordOperation[];

export const recordStep: StepModule<'record'> = {
  kind: 'record',
  validate: validateRecord,
  async run(record, call) {
    const { runtime } = call;
    const ctx = runtime.context;
    const operation = RECORD_OPERATIONS.find((name) => record[name] !== undefined);
    if (!operation) throw new StepFailure(`${call.label} failed: no operation (one of ${RECORD_OPERATIONS.join(', ')})`);
    const key = await resolveValue(record.key ?? '', ctx);
    if ((typeof key !== 'string' && typeof key !== 'number') || String(key) === '') {
      throw new StepFailure(`${call.label} failed: key ${JSON.stringify(key ?? null)} is not a non-empty text or number`);
    }
    let expectedVersion: number | undefined;
    if (record.expectedVersion) {
      expectedVersion = Number(await resolveValue(record.expectedVersion, ctx));
      if (!Number.isInteger(expectedVersion) || expectedVersion < 1) throw new StepFailure(`${call.label} failed: expectedVersion is not a positive integer`);
    }
    const fields = operation === 'insert' || operation === 'modify' || operation === 'upsert' ? record[operation] : undefined;
    const activities = call.services.activities({
      startToCloseTimeout: '30s',
      retry: { maximumAttempts: 5, initialInterval: '500ms', backoffCoefficient: 2 },
      summary: call.label,
    });
    const output = await activities.record({
      operation,
      company: runtime.input.company,
      caller: runtime.input.caller,
      table: record.table ?? '',
      key: String(key),
      data: fields ? ((await resolveDeep(fields, ctx)) as Record<string, unknown>) : undefined,
      expectedVersion,
      allowMissing: record.get?.allowMissing ?? false,
      idempotencyKey: `${runtime.executionId}/${call.at}`,
      executionId: runtime.executionId,
      executionGrant: runtime.input.executionGrant ?? '',
    });
    return { output };
  },
};

function validateRecord(record: RecordStepJson, at: string, { errors, scope }: StepValidation): void {
  if (!record.table) errors.push(`${at}.table: required`);
  else if (!TABLE_NAME.test(record.table)) errors.push(`${at}.table: 1..100 letters, digits, _, - or ., got ${JSON.stringify(record.table)}`);
  checkText(record.key, `${at}.key`, errors, scope, true);
  checkText(record.expectedVersion, `${at}.expectedVersion`, errors, scope);
  const operations = RECORD_OPERATIONS.filter((name) => record[name] !== undefined);
  if (operations.length !== 1) {
    errors.push(`${at}: exactly one operation of ${RECORD_OPERATIONS.join(', ')}`);
    return;
  }
  const operation = operations[0]!;
  if (operation === 'insert' || operation === 'modify' || operation === 'upsert') {
    const fields = record[operation];
    if (!fields || Object.keys(fields).length === 0) errors.push(`${at}.${operation}: at least one field`);
    else checkDeep(fields, `${at}.${operation}`, errors, scope);
  }
  if ((operation === 'get' || operation === 'insert') && record.expectedVersion) {
    errors.push(`${at}.expectedVersion: only for modify, upsert and delete`);
  }
}
