import { Migration } from '@mikro-orm/migrations';

/**
 * The ways into waitForCallback steps: callback URLs and correlation keys,
 * stored only as digests (engine/infrastructure/storage/callback-wait.entity.ts). Matches the
 * entities exactly.
 */
export class Migration0008CallbackWaits extends Migration {
  override name = 'migration-0008-callback-waits';

  override async up(): Promise<void> {
    this.addSql(
      `create table "callback_wait" ("lookup" text not null, "company" text not null, "activity" text not null, "execution_id" text not null, "step" text not null, "sensitive" boolean not null, "created_at" timestamptz not null, "expires_at" timestamptz null, "used_at" timestamptz null, "answer_status" int null, "body_digest" text null, primary key ("lookup"));`,
    );
    // Marking a step's callback used touches every URL and key row of that (execution, step).
    this.addSql(`create index "callback_wait_execution_id_step_index" on "callback_wait" ("execution_id", "step");`);
  }
}
