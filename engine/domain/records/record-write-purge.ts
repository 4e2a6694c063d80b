// Deletes applied-write rows (record_write) older than
// FLOWHOOK_RECORD_WRITE_RETENTION, at start and then periodically, so the
// record idempotency log does not grow forever. Every engine runs it: the
// deletion is idempotent and batched (housekeeping/aged-rows.ts).
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { deleteAgedRows, startAgedRowsPurge } from '../../infrastructure/housekeeping/aged-rows.ts';
import type { PeriodicTask } from '../../infrastructure/housekeeping/periodic-task.ts';

export const PURGE_INTERVAL_MS = 10 * 60 * 1000;
const RECORD_WRITES = { table: 'record_write', key: 'id', column: 'created_at' };

export interface RecordWritePurgeOptions {
  orm: MikroORM;
  logger: Logger;
  retentionMs: number;
  intervalMs?: number;
}

/** One purge: batches until none is full; resolves to the rows deleted. */
export function purgeRecordWrites(orm: MikroORM, retentionMs: number): Promise<number> {
  return deleteAgedRows(orm, RECORD_WRITES, retentionMs);
}

export function startRecordWritePurge(options: RecordWritePurgeOptions): PeriodicTask {
  return startAgedRowsPurge({
    ...options,
    rows: RECORD_WRITES,
    intervalMs: options.intervalMs ?? PURGE_INTERVAL_MS,
    setting: 'FLOWHOOK_RECORD_WRITE_RETENTION',
  });
}
