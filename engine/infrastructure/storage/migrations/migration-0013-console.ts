import { Migration } from '@mikro-orm/migrations';

/**
 * The console's sessions (engine/infrastructure/storage/console-session.entity.ts) and the
 * person behind a change made in the console, in the audit log
 * (engine/infrastructure/storage/audit-event.entity.ts). Matches the entities exactly.
 */
export class Migration0013Console extends Migration {
  override name = 'migration-0013-console';

  override async up(): Promise<void> {
    this.addSql(
      `create table "console_session" ("id" varchar(64) not null, "person" varchar(300) not null, "via" varchar(20) not null, "account" varchar(200) not null, "token_hash" varchar(64) null, "roles" jsonb not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "console_session_expires_at_index" on "console_session" ("expires_at");`);
    this.addSql(`alter table "audit_event" add column "person" varchar(300) null;`);
  }
}
