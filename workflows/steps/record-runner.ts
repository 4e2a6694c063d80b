// record: one operation on the company's record store (get, insert, modify,
// upsert, delete), made by the record activity through the engine. Like
// httpRequest, its activity options are part of the workflow history.
import { resolveDeep, resolveValue } from '../../flow/formula/index.ts';
import { RECORD_OPERATIONS } from '../../flow/steps/record-step.ts';
import { StepFailure } from '../../flow/step-failure.ts';
import type { StepRunner } from './step-runner.ts';

export const recordRunner: StepRunner<'record'> = {
  kind: 'record',
  async run(record, call) {
    const { runtime } = call;
    const ctx = runtime.context;
    const operation = RECORD_OPERATIONS.find((name) => record[name] !== undefined);
    if (!operation)
      throw new StepFailure(`${call.label} failed: no operation (one of ${RECORD_OPERATIONS.join(', ')})`);
    const key = await resolveValue(record.key ?? '', ctx);
    if ((typeof key !== 'string' && typeof key !== 'number') || String(key) === '') {
      throw new StepFailure(
        `${call.label} failed: key ${JSON.stringify(key ?? null)} is not a non-empty text or number`,
      );
    }
    let expectedVersion: number | undefined;
    if (record.expectedVersion) {
      expectedVersion = Number(await resolveValue(record.expectedVersion, ctx));
      if (!Number.isInteger(expectedVersion) || expectedVersion < 1)
        throw new StepFailure(`${call.label} failed: expectedVersion is not a positive integer`);
    }
    const fields =
      operation === 'insert' || operation === 'modify' || operation === 'upsert' ? record[operation] : undefined;
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
