import { defineEntity, p } from '@mikro-orm/core';
import { uuidRow } from './uuid-row.ts';

/**
 * One engine process of the deployment (engine/domain/limits/engine-membership.ts):
 * inserted when it starts (under a new id every time), its heartbeat refreshed every few seconds, deleted
 * when it stops gracefully. Engines whose heartbeat is recent are live; each
 * applies 1/N of the rate limits and the sync-call cap with N live engines.
 */
export const EngineNodeSchema = defineEntity({
  name: 'EngineNode',
  tableName: 'engine_node',
  properties: uuidRow({
    startedAt: p.datetime(),
    /** The database's clock (now()), so engines with skewed clocks agree on who is live. */
    heartbeatAt: p.datetime(),
  }),
});

export class EngineNode extends EngineNodeSchema.class {}
EngineNodeSchema.setClass(EngineNode);
