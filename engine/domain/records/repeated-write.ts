// The answer to a record write that comes again with the same run and
// idempotency key (an activity retried after its first answer was lost). The
// applied-write log keeps no data, only the version the write left, so the
// answer is rebuilt from the record as it is now:
//   - insert, modify, upsert: the record is re-read. Unchanged since (the
//     usual case: a retry follows within seconds) the answer is exactly the
//     first one; changed by a later write, it is the record as it is now —
//     what a `get` would show, and a version a following `expectedVersion`
//     can use. Deleted since, nothing truthful can be answered: a refusal
//     that says so (the write itself was applied once).
//   - delete: the table, key and the version it deleted, with empty data —
//     the deleted data is kept nowhere, which is the point of deleting it.
import { FailedPreconditionError } from '../../errors.ts';
import type { FlowRecord, RecordWrite } from '../../infrastructure/storage/entities.ts';
import type { RecordAddress, RecordSnapshot, WriteResult } from './records.ts';

export function repeatedWriteAnswer(
  earlier: RecordWrite,
  current: FlowRecord | null,
  address: RecordAddress,
  snapshot: (record: FlowRecord) => RecordSnapshot,
): WriteResult {
  // Rows from before migration 0011 do not say what they did: a record that is gone was most likely deleted by it.
  const deleted = earlier.operation === 'delete' || (earlier.operation === 'unknown' && current === null);
  if (deleted) {
    const at = earlier.createdAt.toISOString();
    return {
      record: {
        table: address.table,
        key: address.key,
        data: {},
        version: earlier.version,
        createdAt: at,
        updatedAt: at,
      },
      created: false,
    };
  }
  if (current === null) {
    throw new FailedPreconditionError(
      `record "${address.key}" of table "${address.table}": this ${earlier.operation} was applied once, but the record was deleted before a retry could repeat its answer`,
    );
  }
  return { record: snapshot(current), created: earlier.created };
}
