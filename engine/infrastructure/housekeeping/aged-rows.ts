// Deleting rows older than a retention, the same way for every table that has one (record_write,
// audit_event): in batches, so a long backlog (the first purge after an upgrade) never holds one
// huge transaction, and skipping rows another engine is deleting at that moment (skip locked), so
// engines purging at once never wait on each other. Ages are measured with the database's clock.

import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { startPeriodicTask, type PeriodicTask } from './periodic-task.ts';

const BATCH = 5000;

export interface AgedRows {
  table: string;
  /** The primary key column. */
  key: string;
  /** The timestamp the age is measured from. */
  column: string;
}

/** Deletes every row whose `column` is older than `retentionMs`; resolves to how many. */
export async function deleteAgedRows(orm: MikroORM, rows: AgedRows, retentionMs: number): Promise<number> {
  const sql = `
with old as (
  select "${rows.key}" from "${rows.table}" where "${rows.column}" < now() - make_interval(secs => ?) limit ${BATCH} for update skip locked
)
delete from "${rows.table}" where "${rows.key}" in (select "${rows.key}" from old)`;
  let total = 0;
  for (;;) {
    const result = await orm.em.getConnection().execute<{ affectedRows: number }>(sql, [retentionMs / 1000], 'run');
    const deleted = Number(result.affectedRows ?? 0);
    total += deleted;
    if (deleted < BATCH) return total;
  }
}

export interface AgedRowsPurgeOptions {
  orm: MikroORM;
  logger: Logger;
  rows: AgedRows;
  retentionMs: number;
  intervalMs: number;
  /** The variable that sets the retention, named in the log lines. */
  setting: string;
}

/** Deletes aged rows at start and every interval; a failed round is logged and tried again at the next. */
export function startAgedRowsPurge(options: AgedRowsPurgeOptions): PeriodicTask {
  const { orm, logger, rows, retentionMs, setting } = options;
  return startPeriodicTask(async () => {
    try {
      const deleted = await deleteAgedRows(orm, rows, retentionMs);
      if (deleted > 0)
        logger.info({ table: rows.table, deleted, retentionMs }, `deleted ${rows.table} rows past ${setting}`);
    } catch (error) {
      // Never fatal: the rows wait for the next round.
      logger.warn(
        { table: rows.table, reason: error instanceof Error ? error.message : String(error) },
        `${rows.table} purge failed; it runs again at the next interval`,
      );
    }
  }, options.intervalMs);
}
