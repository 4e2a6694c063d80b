import { Migration } from '@mikro-orm/migrations';

/**
 * Service accounts (one bearer token per calling process, with a scope) and
 * the engines' shared HMAC keys. Matches the entities exactly.
 */
export class Migration0005ServiceAccounts extends Migration {
  override name = 'migration-0005-service-accounts';

  override async up(): Promise<void> {
    this.addSql(
      `create table "service_account" ("id" uuid not null, "name" varchar(100) not null, "scope" varchar(16) not null, "company_ids" jsonb not null, "all_companies" boolean not null, "forwards_callers" boolean not null, "token_hash" varchar(64) not null, "token_hint" varchar(16) not null, "enabled" boolean not null, "created_at" timestamptz not null, "rotated_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "service_account" add constraint "service_account_name_unique" unique ("name");`);
    this.addSql(
      `alter table "service_account" add constraint "service_account_token_hash_unique" unique ("token_hash");`,
    );
    this.addSql(
      `create table "engine_key" ("purpose" varchar(40) not null, "secret" varchar(64) not null, "created_at" timestamptz not null, primary key ("purpose"));`,
    );
  }
}
