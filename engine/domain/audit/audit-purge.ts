// Deletes audit_event rows older than FLOWHOOK_AUDIT_RETENTION, when the setting is given; without
// it nothing is ever deleted. Called by the retention schedule's purge (engine/domain/retention/);
// batched and idempotent, so engines purging at once skip each other's rows (housekeeping/aged-rows.ts).
import type { MikroORM } from '@mikro-orm/postgresql';
import { deleteAgedRows, type AgedRows } from '../../infrastructure/housekeeping/aged-rows.ts';

export const AUDIT_EVENT_ROWS: AgedRows = { table: 'audit_event', key: 'id', column: 'at' };

/** One purge (at most `maxBatches` batches); resolves to the rows deleted. */
export function purgeAuditEvents(orm: MikroORM, retentionMs: number, maxBatches?: number): Promise<number> {
  return deleteAgedRows(orm, AUDIT_EVENT_ROWS, retentionMs, maxBatches);
}
