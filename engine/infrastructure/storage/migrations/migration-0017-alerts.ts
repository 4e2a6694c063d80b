import { Migration } from '@mikro-orm/migrations';

/**
 * Alert rules (engine/infrastructure/storage/alert-rule.entity.ts): one row
 * per company and name, deleted with its company. Matches the entity exactly.
 */
export class Migration0017Alerts extends Migration {
  override name = 'migration-0017-alerts';

  override async up(): Promise<void> {
    this.addSql(
      `create table "alert_rule" ("id" uuid not null, "company_id" uuid not null, "name" varchar(100) not null, "condition" varchar(40) not null, "flow" varchar(200) null, "reason" varchar(100) null, "threshold" int not null, "window_seconds" int not null, "connection" varchar(100) not null, "state" varchar(20) not null, "incidents" int not null, "last_count" int not null, "last_notified_at" timestamptz null, "last_sent" varchar(40) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "alert_rule" add constraint "alert_rule_company_name_unique" unique ("company_id", "name");`,
    );
    this.addSql(
      `alter table "alert_rule" add constraint "alert_rule_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`,
    );
  }
}
