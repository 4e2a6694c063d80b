// Deletes applied-write rows (record_write) older than
// FLOWHOOK_RECORD_WRITE_RETENTION, at start and then periodically, so the
// record idempotency log does not grow forever. Every engine runs it: the
// statement is idempotent, and rows another engine is deleting at the same
// moment are skipped (skip locked), so engines never wait on each other. Times
// are the database's own (now()), like the engine heartbeat's. Deletes in
// batches so a long backlog (the first purge after an upgrade) never holds
// one huge transaction.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { startPeriodicTask, type PeriodicTask } from '../housekeeping/periodic-task.ts';

export const PURGE_INTERVAL_MS = 10 * 60 * 1000;
const BATCH = 5000;

const PURGE_SQL = `
with old as (
  select "id" from "record_write" where "created_at" < now() - make_interval(secs => ?) limit ${BATCH} for update skip locked
)
delete from "record_write" where "id" in (select "id" from old)`;

export interface RecordWritePurgeOptions {
  orm: MikroORM;
  logger: Logger;
  retentionMs: number;
  intervalMs?: number;
}

/** One purge: batches until none is full; resolves to the rows deleted. */
export async function purgeRecordWrites(orm: MikroORM, retentionMs: number): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await orm.em.getConnection().execute<{ affectedRows: number }>(PURGE_SQL, [retentionMs / 1000], 'run');
    const deleted = Number(result.affectedRows ?? 0);
    total += deleted;
    if (deleted < BATCH) return total;
  }
}

export function startRecordWritePurge(options: RecordWritePurgeOptions): PeriodicTask {
  const { orm, logger, retentionMs } = options;
  return startPeriodicTask(async () => {
    try {
      const deleted = await purgeRecordWrites(orm, retentionMs);
      if (deleted > 0) logger.debug({ deleted, retentionMs }, 'purged record write rows past FLOWHOOK_RECORD_WRITE_RETENTION');
    } catch (error) {
      // Never fatal: the rows wait for the next round.
      logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'record write purge failed; it runs again at the next interval');
    }
  }, options.intervalMs ?? PURGE_INTERVAL_MS);
}
