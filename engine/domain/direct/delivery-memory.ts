// The engines' memory of deliveries accepted on provider routes whose signature covers no
// timestamp (storage/provider-delivery.entity.ts). Temporal's id reuse policy already joins a
// replay to the first execution while the namespace keeps it — and on routes with a signed
// timestamp that always outlasts the tolerance (at most an hour), after which the timestamp
// refuses the replay. Without a timestamp only this table stops a replay once Temporal has
// deleted the closed execution: then the call finds the delivery remembered and is refused
// instead of starting it again. It lives in PostgreSQL, not in an engine's memory: every engine
// of the cluster sees the same rows, a restart forgets nothing, and only requests that proved
// their signature add one. Rows older than FLOWHOOK_HOOK_REPLAY_WINDOW no longer count and are
// deleted by the retention schedule's purge (engine/domain/retention/).
import { createHash } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { deleteAgedRows, type AgedRows } from '../../infrastructure/housekeeping/aged-rows.ts';

export const PROVIDER_DELIVERY_ROWS: AgedRows = { table: 'provider_delivery', key: 'key', column: 'received_at' };

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

/** One purge (at most `maxBatches` batches): deletes the rows past the window; resolves to how many. */
export function purgeDeliveries(orm: MikroORM, windowMs: number, maxBatches?: number): Promise<number> {
  return deleteAgedRows(orm, PROVIDER_DELIVERY_ROWS, windowMs, maxBatches);
}

function keyOf(executionId: string): string {
  return createHash('sha256').update(executionId, 'utf8').digest('hex');
}
