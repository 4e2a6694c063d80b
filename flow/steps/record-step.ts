// record: one operation on the company's record store (get, insert, modify,
// upsert, delete), made at run time by the record activity through the engine
// (its runner: workflows/steps/record-runner.ts). A step holds exactly one
// operation, which the runner finds by the same list.
import type { RecordStepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { checkDeep, checkText } from '../field-checks.ts';
import type { StepModel, StepValidation } from './step-model.ts';

const TABLE_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
/** The operations, as the step's fields name them; the order of the "one of" in problems and failures. */
export const RECORD_OPERATIONS = [
  'get',
  'insert',
  'modify',
  'upsert',
  'delete',
] as const satisfies readonly (keyof RecordStepJson)[];

export const recordStep: StepModel<'record'> = {
  kind: 'record',
  validate: validateRecord,
};

function validateRecord(record: RecordStepJson, at: string, { errors, scope }: StepValidation): void {
  if (!record.table) errors.push(`${at}.table: required`);
  else if (!TABLE_NAME.test(record.table))
    errors.push(`${at}.table: 1..100 letters, digits, _, - or ., got ${JSON.stringify(record.table)}`);
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
