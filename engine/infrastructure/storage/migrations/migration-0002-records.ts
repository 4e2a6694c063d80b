import { Migration } from '@mikro-orm/migrations';

/**
 * Company-scoped flow records (the record step) and the applied-write log that
 * makes a retried record write apply once. Matches the entities exactly.
 */
export class Migration0002Records extends Migration {
  override name = 'migration-0002-records';

  override async up(): Promise<void> {
    // The unique (company_id, table_name, key) index turns a duplicate key into a clear error, even when two inserts race.
    this.addSql(
      `create table "record" ("id" uuid not null, "company_id" uuid not null, "table_name" varchar(100) not null, "key" varchar(250) not null, "data" jsonb not null, "version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "record" add constraint "record_company_table_key_unique" unique ("company_id", "table_name", "key");`,
    );

    this.addSql(
      `create table "record_write" ("id" uuid not null, "company_id" uuid not null, "idempotency_key" varchar(600) not null, "response" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "record_write" add constraint "record_write_company_idempotency_key_unique" unique ("company_id", "idempotency_key");`,
    );

    this.addSql(
      `alter table "record" add constraint "record_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "record_write" add constraint "record_write_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`,
    );
  }
}
