import { defineEntity, p } from '@mikro-orm/core';
import { owningCompany } from './company-row.ts';
import { uuidRow } from './uuid-row.ts';

/**
 * One applied record write, keyed by the Temporal run and its idempotency key
 * (execution id + step path). Written in the same transaction as the write
 * itself, so a retried activity finds it and gets the first answer back
 * instead of applying the write twice. It keeps no record data: a digest of
 * the request (a reused key with another write is refused) and the version the
 * write left, from which engine/domain/records/repeated-write.ts rebuilds the answer.
 * Rows are deleted after FLOWHOOK_RECORD_WRITE_RETENTION
 * (engine/domain/records/record-write-purge.ts).
 */
export const RecordWriteSchema = defineEntity({
  name: 'RecordWrite',
  tableName: 'record_write',
  uniques: [
    { name: 'record_write_company_run_idempotency_key_unique', properties: ['company', 'runId', 'idempotencyKey'] },
  ],
  indexes: [{ name: 'record_write_created_at_index', properties: ['createdAt'] }],
  properties: uuidRow({
    company: owningCompany(),
    /** The Temporal run id; empty for callers outside an execution. */
    runId: p.string().length(100),
    idempotencyKey: p.string().length(600),
    /** insert, modify, upsert or delete; `unknown` for rows written before migration 0011. */
    operation: p.string().length(10),
    /** Hex SHA-256 of the request (engine/domain/records/write-digest.ts); empty for rows written before migration 0011. */
    requestDigest: p.string().length(64),
    /** The record's version after the write; for a delete, the version it deleted. */
    version: p.integer(),
    /** upsert: whether the write created the record. */
    created: p.boolean(),
    createdAt: p.datetime(),
  }),
});

export class RecordWrite extends RecordWriteSchema.class {}
RecordWriteSchema.setClass(RecordWrite);
