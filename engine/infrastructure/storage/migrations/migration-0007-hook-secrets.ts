import { Migration } from '@mikro-orm/migrations';

/**
 * Signing secrets of provider routes (trigger.webhook.direct), encrypted like
 * connection secrets, with the replaced secret kept for a rotation overlap.
 * Matches the entities exactly.
 */
export class Migration0007HookSecrets extends Migration {
  override name = 'migration-0007-hook-secrets';

  override async up(): Promise<void> {
    this.addSql(
      `create table "hook_secret" ("id" uuid not null, "company_id" uuid not null, "activity" varchar(250) not null, "secret_ciphertext" text not null, "key_id" varchar(32) not null, "previous_ciphertext" text null, "previous_key_id" varchar(32) null, "previous_valid_until" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "hook_secret" add constraint "hook_secret_company_activity_unique" unique ("company_id", "activity");`,
    );
    this.addSql(
      `alter table "hook_secret" add constraint "hook_secret_activity_check" check (activity = lower(activity));`,
    );
    this.addSql(
      `alter table "hook_secret" add constraint "hook_secret_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`,
    );
  }
}
