import { Migration } from '@mikro-orm/migrations';

/**
 * Identity-provider applications (OAuth 2.0 callers) and their permission set
 * assignments per company. Matches the entities exactly.
 */
export class Migration0003Applications extends Migration {
  override name = 'migration-0003-applications';

  override async up(): Promise<void> {
    this.addSql(
      `create table "identity_application" ("id" uuid not null, "client_id" varchar(250) not null, "description" varchar(250) not null, "enabled" boolean not null, "consent_granted" boolean not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "identity_application" add constraint "identity_application_client_id_unique" unique ("client_id");`,
    );

    this.addSql(
      `create table "application_permission" ("id" uuid not null, "application_id" uuid not null, "company_id" uuid null, "permission_set" varchar(50) not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "application_permission_application_id_index" on "application_permission" ("application_id");`,
    );

    this.addSql(
      `alter table "application_permission" add constraint "application_permission_application_id_foreign" foreign key ("application_id") references "identity_application" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "application_permission" add constraint "application_permission_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`,
    );
  }
}
