// Which engines of a deployment are live, so each can take its share of the
// cluster-wide limits (cluster-share.ts). Every engine process has a row in
// engine_node, inserted at start, refreshed every few seconds and deleted on a
// graceful stop; a row whose heartbeat is older than the live window belongs
// to an engine that is gone (crashed, cut off). The same statement that
// refreshes this engine's row counts the live ones, so the count costs one
// round trip per heartbeat and none per call. Times are the database's own
// (now()), so engines with skewed clocks still agree.
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { startPeriodicTask } from '../../infrastructure/housekeeping/periodic-task.ts';

export const HEARTBEAT_INTERVAL_MS = 5000;
/** A node is live while its heartbeat is newer than this: three heartbeats, so one slow beat does not drop it. */
export const LIVE_WINDOW_MS = 15_000;
/** Rows of engines gone this long are deleted by whoever beats next (crashed engines never delete their own). */
const FORGET_AFTER_MS = 60 * 60 * 1000;

export interface EngineMembershipOptions {
  orm: MikroORM;
  logger: Logger;
  /** Told the count of live engines (this one included, at least 1) after every heartbeat that reached the database. */
  onLiveNodes(liveNodes: number): void;
  heartbeatIntervalMs?: number;
  liveWindowMs?: number;
}

export interface EngineMembership {
  /** This engine process's row. */
  readonly nodeId: string;
  /** Live engines by the last heartbeat that reached the database (1 until one has). */
  liveNodes(): number;
  /** Stops the heartbeat and deletes this engine's row, so the others take its share at their next heartbeat. */
  close(): Promise<void>;
}

/** The upsert of this node's heartbeat, the purge of long-gone rows and the count of the other live nodes, in one round trip. */
const HEARTBEAT_SQL = `
with beat as (
  insert into "engine_node" ("id", "started_at", "heartbeat_at") values (?, ?, now())
  on conflict ("id") do update set "heartbeat_at" = now()
), forgotten as (
  delete from "engine_node" where "heartbeat_at" < now() - make_interval(secs => ?) and "id" <> ?
)
select count(*)::int as "others" from "engine_node" where "id" <> ? and "heartbeat_at" > now() - make_interval(secs => ?)`;

export async function startEngineMembership(options: EngineMembershipOptions): Promise<EngineMembership> {
  const { orm, logger } = options;
  const intervalMs = options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS;
  const liveWindowSeconds = (options.liveWindowMs ?? LIVE_WINDOW_MS) / 1000;
  const nodeId = randomUUID();
  const startedAt = new Date();
  let live = 1;
  let failures = 0;
  let closed = false;

  async function beat(): Promise<void> {
    try {
      const rows = await orm.em
        .getConnection()
        .execute<{ others: number }[]>(HEARTBEAT_SQL, [
          nodeId,
          startedAt,
          FORGET_AFTER_MS / 1000,
          nodeId,
          nodeId,
          liveWindowSeconds,
        ]);
      if (closed) return;
      if (failures > 0)
        logger.info({ nodeId, failedHeartbeats: failures }, 'engine heartbeat reaches the database again');
      failures = 0;
      const count = 1 + Number(rows[0]?.others ?? 0);
      if (count !== live)
        logger.info(
          { nodeId, liveEngines: count, before: live },
          'live engines changed: each applies its share of the rate limits',
        );
      live = count;
      options.onLiveNodes(live);
    } catch (error) {
      // Never fatal: the engine keeps its last share. Said once per streak, then once a minute.
      failures++;
      if (failures === 1 || failures % Math.max(1, Math.round(60_000 / intervalMs)) === 0) {
        logger.warn(
          { nodeId, failedHeartbeats: failures, reason: error instanceof Error ? error.message : String(error) },
          'engine heartbeat failed; the rate-limit share stays as it was',
        );
      }
    }
  }

  const beats = startPeriodicTask(beat, intervalMs);
  await beats.firstRound;

  return {
    nodeId,
    liveNodes: () => live,
    async close() {
      if (closed) return;
      closed = true;
      await beats.close();
      try {
        await orm.em.getConnection().execute(`delete from "engine_node" where "id" = ?`, [nodeId]);
      } catch (error) {
        logger.warn(
          { nodeId, reason: error instanceof Error ? error.message : String(error) },
          "could not delete this engine's engine_node row; the others notice it is gone once its heartbeat is stale",
        );
      }
    },
  };
}
