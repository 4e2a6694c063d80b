// Deletes applied-write rows (record_write) older than FLOWHOOK_RECORD_WRITE_RETENTION, so the
// record idempotency log does not grow forever. Called by the retention schedule's purge
// (engine/domain/retention/); the deletion is idempotent and batched (housekeeping/aged-rows.ts).
import type { MikroORM } from '@mikro-orm/postgresql';
import { deleteAgedRows, type AgedRows } from '../../infrastructure/housekeeping/aged-rows.ts';

export const RECORD_WRITE_ROWS: AgedRows = { table: 'record_write', key: 'id', column: 'created_at' };

/** One purge (at most `maxBatches` batches); resolves to the rows deleted. */
export function purgeRecordWrites(orm: MikroORM, retentionMs: number, maxBatches?: number): Promise<number> {
  return deleteAgedRows(orm, RECORD_WRITE_ROWS, retentionMs, maxBatches);
}
