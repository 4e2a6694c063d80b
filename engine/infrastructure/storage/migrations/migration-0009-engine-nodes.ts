import { Migration } from '@mikro-orm/migrations';

/**
 * The live engine processes (engine/infrastructure/storage/engine-node.entity.ts), so each
 * engine can apply its share of the cluster-wide rate limits. Matches the
 * entity exactly.
 */
export class Migration0009EngineNodes extends Migration {
  override name = 'migration-0009-engine-nodes';

  override async up(): Promise<void> {
    this.addSql(
      `create table "engine_node" ("id" uuid not null, "started_at" timestamptz not null, "heartbeat_at" timestamptz not null, primary key ("id"));`,
    );
  }
}
