// One round of the retention purge: the rows of every kind in PostgreSQL past its retention
// (retention-kinds.ts), each kind at most ROUND_BATCHES batches, so one call to the engine stays
// short however large the backlog (the first purge after an upgrade, a week without a worker).
// The retention workflow calls again while a round says `more`. Kinds go one after another:
// a kind that fails fails the round (the workflow's activity retries it), the rows wait.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { AGED_ROWS_BATCH, deleteAgedRows } from '../../infrastructure/housekeeping/aged-rows.ts';
import { purgeAuditEvents } from '../audit/audit-purge.ts';
import { purgeCallbackWaits } from '../callbacks/callback-wait-purge.ts';
import { purgeDeliveries } from '../direct/delivery-memory.ts';
import { purgeRecordWrites } from '../records/record-write-purge.ts';
import { countsOf, KIND_FACTS, type RowKind, type RowRetentions } from './retention-kinds.ts';

/** Batches of AGED_ROWS_BATCH rows each kind deletes per round at most. */
export const ROUND_BATCHES = 20;

export interface ExpiredRowsPurgeDeps {
  orm: MikroORM;
  /** Whether an old unused callback row's execution still runs. */
  temporal: Client;
  retentions: RowRetentions;
}

export interface ExpiredRowsRound {
  purged: Record<RowKind, number>;
  more: boolean;
  /** Where the next round's look at unused callback rows resumes ('' from the beginning). */
  nextCallbackCursor: string;
}

export async function purgeExpiredRows(deps: ExpiredRowsPurgeDeps, callbackCursor = ''): Promise<ExpiredRowsRound> {
  const { orm, retentions } = deps;
  const purged: Partial<Record<RowKind, number>> = {};
  let more = false;
  const full = (deleted: number) => deleted >= ROUND_BATCHES * AGED_ROWS_BATCH;
  const aged = async (kind: RowKind, purge: () => Promise<number>) => {
    purged[kind] = await purge();
    if (full(purged[kind])) more = true;
  };
  await aged('deliveries', () =>
    deleteAgedRows(orm, KIND_FACTS.deliveries.rows!, retentions.deliveries, ROUND_BATCHES),
  );
  // `off`: the audit log is kept for good.
  if (retentions.audit !== undefined) {
    const auditMs = retentions.audit;
    await aged('audit', () => purgeAuditEvents(orm, auditMs, ROUND_BATCHES));
  }
  // Sessions go once expired: their row's expiry is the retention.
  await aged('console_sessions', () => deleteAgedRows(orm, KIND_FACTS.console_sessions.rows!, 0, ROUND_BATCHES));
  await aged('idempotency', () => purgeDeliveries(orm, retentions.idempotency, ROUND_BATCHES));
  const cursor = { after: callbackCursor };
  const callbacks = await purgeCallbackWaits(
    { orm, temporal: deps.temporal, retentionMs: retentions.callbacks, maxBatches: ROUND_BATCHES },
    cursor,
  );
  purged.callbacks = callbacks.aged + callbacks.ofClosedExecutions;
  if (callbacks.more) more = true;
  await aged('record_writes', () => purgeRecordWrites(orm, retentions.record_writes, ROUND_BATCHES));
  return { purged: countsOf(purged), more, nextCallbackCursor: cursor.after };
}
