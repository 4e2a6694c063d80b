import { Migration } from '@mikro-orm/migrations';

/**
 * Connections (stored outbound credentials, encrypted) and a company's own
 * egress list. Matches the entities exactly.
 */
export class Migration0004Connections extends Migration {
  override name = 'migration-0004-connections';

  override async up(): Promise<void> {
    this.addSql(
      `create table "connection" ("id" uuid not null, "company_id" uuid not null, "name" varchar(100) not null, "type" varchar(40) not null, "settings" jsonb not null, "secret_ciphertext" text not null, "key_id" varchar(32) not null, "version" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "connection" add constraint "connection_company_name_unique" unique ("company_id", "name");`,
    );
    this.addSql(
      `alter table "connection" add constraint "connection_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "company" add column "egress_allow" jsonb null;`);
  }
}
