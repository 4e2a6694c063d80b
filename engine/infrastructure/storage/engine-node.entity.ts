import { defineEntity, p } from '@mikro-orm/core';

/**
 * One engine process of the deployment (engine/limits/engine-membership.ts):
 * inserted when it starts, its heartbeat refreshed every few seconds, deleted
 * when it stops gracefully. Engines whose heartbeat is recent are live; each
 * applies 1/N of the rate limits and the sync-call cap with N live engines.
 */
export const EngineNodeSchema = defineEntity({
  name: 'EngineNode',
  tableName: 'engine_node',
  properties: {
    /** New for every process start. */
    id: p.uuid().primary(),
    startedAt: p.datetime(),
    /** The database's clock (now()), so engines with skewed clocks agree on who is live. */
    heartbeatAt: p.datetime(),
  },
});

export class EngineNode extends EngineNodeSchema.class {}
EngineNodeSchema.setClass(EngineNode);
