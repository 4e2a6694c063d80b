import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log of admin actions (engine/infrastructure/storage/audit-event.entity.ts),
 * listed newest first and filtered by time. Matches the entity exactly.
 */
export class Migration0010AuditLog extends Migration {
  override name = 'migration-0010-audit-log';

  override async up(): Promise<void> {
    this.addSql(
      `create table "audit_event" ("id" bigserial primary key, "at" timestamptz not null, "account" varchar(200) not null, "action" varchar(100) not null, "method" varchar(200) not null, "company" varchar(200) null, "target" varchar(300) null, "outcome" varchar(40) not null, "details" jsonb not null);`,
    );
    this.addSql(`create index "audit_event_at_index" on "audit_event" ("at");`);
  }
}
