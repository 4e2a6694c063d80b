// The retention workflow's activity: one purge round, a call to the engine's HousekeepingService
// with the worker's records-scope token. The engine deletes and counts; the worker never touches
// PostgreSQL. A failed round (the engine or the database away) is retried by Temporal.
import type { Client } from '@connectrpc/connect';
import type { HousekeepingService } from '../../proto/gen/flowhook/engine/v1/retention_service_pb.js';

export type HousekeepingClient = Client<typeof HousekeepingService>;

export interface PurgeRound {
  /** Rows deleted this round, per kind. */
  purged: Record<string, number>;
  more: boolean;
  nextCallbackCursor: string;
}

export function createRetentionActivities(client: HousekeepingClient) {
  return {
    async purgeExpired(input: { callbackCursor: string }): Promise<PurgeRound> {
      const answer = await client.purgeExpired({ callbackCursor: input.callbackCursor });
      return {
        purged: Object.fromEntries(answer.purged.map((rows) => [rows.kind, Number(rows.rows)])),
        more: answer.more,
        nextCallbackCursor: answer.nextCallbackCursor,
      };
    },
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
