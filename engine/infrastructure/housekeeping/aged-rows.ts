// Deleting rows older than a retention, the same way for every table that has one (delivery,
// audit_event, record_write, provider_delivery, console_session; engine/domain/retention/): in batches, so a long backlog (the first purge after an upgrade) never holds one
// huge transaction, and skipping rows another engine is deleting at that moment (skip locked), so
// engines purging at once never wait on each other. Ages are measured with the database's clock.

import type { MikroORM } from '@mikro-orm/postgresql';

/** Rows one statement deletes at most. */
export const AGED_ROWS_BATCH = 5000;
const BATCH = AGED_ROWS_BATCH;

export interface AgedRows {
  table: string;
  /** The primary key column. */
  key: string;
  /** The timestamp the age is measured from. */
  column: string;
}

/**
 * Deletes every row whose `column` is older than `retentionMs`, or at most `maxBatches` batches of
 * them (a bounded round: the retention schedule calls again while a kind has more); resolves to how many.
 */
export async function deleteAgedRows(
  orm: MikroORM,
  rows: AgedRows,
  retentionMs: number,
  maxBatches = Infinity,
): Promise<number> {
  const sql = `
with old as (
  select "${rows.key}" from "${rows.table}" where "${rows.column}" < now() - make_interval(secs => ?) limit ${BATCH} for update skip locked
)
delete from "${rows.table}" where "${rows.key}" in (select "${rows.key}" from old)`;
  let total = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const result = await orm.em.getConnection().execute<{ affectedRows: number }>(sql, [retentionMs / 1000], 'run');
    const deleted = Number(result.affectedRows ?? 0);
    total += deleted;
    if (deleted < BATCH) return total;
  }
  return total;
}
