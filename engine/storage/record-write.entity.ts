import { defineEntity, p } from '@mikro-orm/core';
import { Company } from './company.entity.ts';

/**
 * One applied record write, keyed by execution id + step path. Written in the
 * same transaction as the write itself, so a retried activity finds it and
 * gets the first answer back instead of applying the write twice.
 */
export const RecordWriteSchema = defineEntity({
  name: 'RecordWrite',
  tableName: 'record_write',
  uniques: [{ name: 'record_write_company_idempotency_key_unique', properties: ['company', 'idempotencyKey'] }],
  properties: {
    id: p.uuid().primary(),
    company: () => p.manyToOne(Company).deleteRule('cascade'),
    idempotencyKey: p.string().length(600),
    response: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
  },
});

export class RecordWrite extends RecordWriteSchema.class {}
RecordWriteSchema.setClass(RecordWrite);
