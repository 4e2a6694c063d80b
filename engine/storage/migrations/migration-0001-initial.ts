import { Migration } from '@mikro-orm/migrations';

/** Companies, flows with immutable versions, the published-trigger registry, service users. */
export class Migration0001Initial extends Migration {
  override name = 'migration-0001-initial';

  override async up(): Promise<void> {
    this.addSql(`create table "company" (
      "id" uuid not null primary key,
      "name" varchar(250) not null,
      "created_at" timestamptz not null);`);
    this.addSql(`alter table "company" add constraint "company_name_unique" unique ("name");`);

    this.addSql(`create table "flow" (
      "id" uuid not null primary key,
      "company_id" uuid not null references "company" ("id") on update cascade on delete cascade,
      "name" varchar(250) not null,
      "secret_hash" varchar(64) null,
      "secret_rotated_at" timestamptz null,
      "latest_version" int not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql(`create index "flow_company_id_index" on "flow" ("company_id");`);
    this.addSql(`alter table "flow" add constraint "flow_company_name_unique" unique ("company_id", "name");`);

    this.addSql(`create table "flow_version" (
      "id" uuid not null primary key,
      "flow_id" uuid not null references "flow" ("id") on update cascade on delete cascade,
      "version" int not null,
      "activity" varchar(250) not null check ("activity" = lower("activity")),
      "definition" jsonb not null,
      "created_at" timestamptz not null);`);
    this.addSql(`create index "flow_version_flow_id_index" on "flow_version" ("flow_id");`);
    this.addSql(`alter table "flow_version" add constraint "flow_version_flow_version_unique" unique ("flow_id", "version");`);

    this.addSql(`create table "published_flow" (
      "flow_id" uuid not null primary key references "flow" ("id") on update cascade on delete cascade,
      "company_id" uuid not null references "company" ("id") on update cascade on delete cascade,
      "activity" varchar(250) not null check ("activity" = lower("activity")),
      "flow_version_id" uuid not null references "flow_version" ("id") on update cascade,
      "published_at" timestamptz not null);`);
    this.addSql(`create index "published_flow_company_id_index" on "published_flow" ("company_id");`);
    this.addSql(`create index "published_flow_flow_version_id_index" on "published_flow" ("flow_version_id");`);
    this.addSql(`alter table "published_flow" add constraint "published_flow_company_activity_unique" unique ("company_id", "activity");`);

    this.addSql(`create table "service_user" (
      "id" uuid not null primary key,
      "name" varchar(250) not null,
      "access_key_hash" varchar(64) not null,
      "access_key_expires_at" timestamptz null,
      "enabled" boolean not null,
      "created_at" timestamptz not null);`);
    this.addSql(`alter table "service_user" add constraint "service_user_name_unique" unique ("name");`);

    this.addSql(`create table "permission_assignment" (
      "id" uuid not null primary key,
      "service_user_id" uuid not null references "service_user" ("id") on update cascade on delete cascade,
      "company_id" uuid null references "company" ("id") on update cascade on delete cascade,
      "permission_set" varchar(50) not null);`);
    this.addSql(`create index "permission_assignment_service_user_id_index" on "permission_assignment" ("service_user_id");`);
    this.addSql(`create index "permission_assignment_company_id_index" on "permission_assignment" ("company_id");`);
  }
}
