// The engines' memory of deliveries accepted on provider routes whose signature covers no
// timestamp (storage/provider-delivery.entity.ts). Temporal's id reuse policy already joins a
// replay to the first execution while the namespace keeps it — and on routes with a signed
// timestamp that always outlasts the tolerance (at most an hour), after which the timestamp
// refuses the replay. Without a timestamp only this table stops a replay once Temporal has
// deleted the closed execution: then the call finds the delivery remembered and is refused
// instead of starting it again. It lives in PostgreSQL, not in an engine's memory: every engine
// of the cluster sees the same rows, a restart forgets nothing, and only requests that proved
// their signature add one. Rows older than FLOWHOOK_HOOK_REPLAY_WINDOW are purged by every
// engine (housekeeping/aged-rows.ts) and no longer count.
import { createHash } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { deleteAgedRows, startAgedRowsPurge } from '../../infrastructure/housekeeping/aged-rows.ts';
import type { PeriodicTask } from '../../infrastructure/housekeeping/periodic-task.ts';

const DELIVERIES = { table: 'provider_delivery', key: 'key', column: 'received_at' };
export const DELIVERY_PURGE_INTERVAL_MS = 10 * 60 * 1000;

export interface DeliveryMemory {
  /** Whether the delivery that starts this execution was accepted within the window. */
  remembers(em: EntityManager, executionId: string): Promise<boolean>;
  /** Called once Temporal acknowledged the execution; the window counts from the first acceptance (or restarts once it ran out). */
  remember(em: EntityManager, executionId: string): Promise<void>;
}

export function createDeliveryMemory(windowMs: number): DeliveryMemory {
  const windowSeconds = windowMs / 1000;
  return {
    async remembers(em, executionId) {
      const rows = await em
        .getConnection()
        .execute<unknown[]>(
          `select 1 from "provider_delivery" where "key" = ? and "received_at" > now() - make_interval(secs => ?)`,
          [keyOf(executionId), windowSeconds],
        );
      return rows.length > 0;
    },
    async remember(em, executionId) {
      await em.getConnection().execute(
        `insert into "provider_delivery" ("key", "received_at") values (?, now())
         on conflict ("key") do update set "received_at" = excluded."received_at"
         where "provider_delivery"."received_at" <= now() - make_interval(secs => ?)`,
        [keyOf(executionId), windowSeconds],
        'run',
      );
    },
  };
}

/** One purge: deletes the rows past the window; resolves to how many. */
export function purgeDeliveries(orm: MikroORM, windowMs: number): Promise<number> {
  return deleteAgedRows(orm, DELIVERIES, windowMs);
}

/** Deletes rows past the window at start and every interval, on every engine (idempotent, batched). */
export function startDeliveryPurge(options: {
  orm: MikroORM;
  logger: Logger;
  windowMs: number;
  intervalMs?: number;
}): PeriodicTask {
  return startAgedRowsPurge({
    orm: options.orm,
    logger: options.logger,
    rows: DELIVERIES,
    retentionMs: options.windowMs,
    intervalMs: options.intervalMs ?? DELIVERY_PURGE_INTERVAL_MS,
    setting: 'FLOWHOOK_HOOK_REPLAY_WINDOW',
  });
}

function keyOf(executionId: string): string {
  return createHash('sha256').update(executionId, 'utf8').digest('hex');
}
