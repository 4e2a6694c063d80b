import { defineEntity, p } from '@mikro-orm/core';
import { companyRow } from './company-row.ts';

/**
 * A company-scoped record of a flow table (the record step's "host tables").
 * The unique index on (company, table, key) makes a duplicate key a database
 * error, not a race; `version` is the optimistic-concurrency column: every
 * write checks and increments it.
 */
export const RecordSchema = defineEntity({
  name: 'Record',
  tableName: 'record',
  uniques: [{ name: 'record_company_table_key_unique', properties: ['company', 'tableName', 'key'] }],
  properties: companyRow({
    tableName: p.string().length(100),
    key: p.string().length(250),
    data: p.json<Record<string, unknown>>(),
    version: p.integer().version(),
  }),
});

export class FlowRecord extends RecordSchema.class {}
RecordSchema.setClass(FlowRecord);
