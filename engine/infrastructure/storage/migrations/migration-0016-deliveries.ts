import { Migration } from '@mikro-orm/migrations';

/**
 * The delivery log (engine/infrastructure/storage/delivery.entity.ts): every request the facade
 * answered on a webhook route, newest first by time, per company, and per company by outcome and
 * reason (what alerts count). A stored body names the secret store key it is wrapped under (`key_id`,
 * what `secret-store rotate` looks for). Matches the entity exactly.
 */
export class Migration0016Deliveries extends Migration {
  override name = 'migration-0016-deliveries';

  override async up(): Promise<void> {
    this.addSql(
      `create table "delivery" ("id" uuid not null, "received_at" timestamptz not null, "route" text not null, "company" text null, "activity" text null, "caller" text null, "sender" text null, "outcome" text not null, "reason" text null, "status" int not null, "answer" text null, "latency_ms" int null, "request_id" text null, "execution_id" text null, "headers" jsonb null, "body" bytea null, "key_id" varchar(32) null, "count" int not null default 1, primary key ("id"));`,
    );
    this.addSql(
      `alter table "delivery" add constraint "delivery_key_id_check" check ((body is null) = (key_id is null));`,
    );
    this.addSql(`create index "delivery_received_at_index" on "delivery" ("received_at");`);
    this.addSql(`create index "delivery_company_received_at_index" on "delivery" ("company", "received_at");`);
    this.addSql(
      `create index "delivery_company_outcome_reason_received_at_index" on "delivery" ("company", "outcome", "reason", "received_at");`,
    );
  }
}
