import { Migration } from '@mikro-orm/migrations';

/**
 * Record data has a lifetime (engine/infrastructure/storage/record-write.entity.ts): the
 * applied-write log keeps a request digest and the resulting version instead
 * of a copy of the record, is keyed by the Temporal run as well, and gets an
 * index for the purge by age. Existing rows keep their version and `created`
 * flag; their copies of record data are dropped here. Matches the entity
 * exactly.
 */
export class Migration0011RecordLifetime extends Migration {
  override name = 'migration-0011-record-lifetime';

  override async up(): Promise<void> {
    this.addSql(
      `alter table "record_write" add column "run_id" varchar(100) not null default '', add column "operation" varchar(10) not null default 'unknown', add column "request_digest" varchar(64) not null default '', add column "version" int null, add column "created" boolean not null default false;`,
    );
    this.addSql(
      `update "record_write" set "version" = coalesce(("response" -> 'record' ->> 'version')::int, 0), "created" = coalesce(("response" ->> 'created')::boolean, false);`,
    );
    // The defaults only filled the existing rows: every new row names its run, operation and digest.
    this.addSql(
      `alter table "record_write" alter column "run_id" drop default, alter column "operation" drop default, alter column "request_digest" drop default, alter column "created" drop default, alter column "version" set not null, drop column "response";`,
    );
    this.addSql(`alter table "record_write" drop constraint "record_write_company_idempotency_key_unique";`);
    this.addSql(
      `alter table "record_write" add constraint "record_write_company_run_idempotency_key_unique" unique ("company_id", "run_id", "idempotency_key");`,
    );
    this.addSql(`create index "record_write_created_at_index" on "record_write" ("created_at");`);
  }
}
