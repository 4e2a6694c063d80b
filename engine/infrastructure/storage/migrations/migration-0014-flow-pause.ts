import { Migration } from '@mikro-orm/migrations';

/**
 * `flowhook flow pause|resume`: when a flow was paused (null while it runs).
 * Matches the entity exactly.
 */
export class Migration0014FlowPause extends Migration {
  override name = 'migration-0014-flow-pause';

  override async up(): Promise<void> {
    this.addSql(`alter table "flow" add column "paused_at" timestamptz null;`);
  }
}
