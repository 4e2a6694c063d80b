// Deletes audit_event rows older than FLOWHOOK_AUDIT_RETENTION (audit-retention.ts), at start and
// then every hour, when the setting is given; without it nothing is ever deleted. Every engine
// runs it (batched and idempotent: housekeeping/aged-rows.ts).
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { deleteAgedRows, startAgedRowsPurge } from '../../infrastructure/housekeeping/aged-rows.ts';
import type { PeriodicTask } from '../../infrastructure/housekeeping/periodic-task.ts';

const AUDIT_EVENTS = { table: 'audit_event', key: 'id', column: 'at' };
const INTERVAL_MS = 60 * 60 * 1000;

export function purgeAuditEvents(orm: MikroORM, retentionMs: number): Promise<number> {
  return deleteAgedRows(orm, AUDIT_EVENTS, retentionMs);
}

export function startAuditPurge(options: {
  orm: MikroORM;
  logger: Logger;
  retentionMs: number;
  intervalMs?: number;
}): PeriodicTask {
  return startAgedRowsPurge({
    ...options,
    rows: AUDIT_EVENTS,
    intervalMs: options.intervalMs ?? INTERVAL_MS,
    setting: 'FLOWHOOK_AUDIT_RETENTION',
  });
}
