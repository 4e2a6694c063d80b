import { Migration } from '@mikro-orm/migrations';

/**
 * Companies, flows with immutable versions, the published-trigger registry
 * and service users. Matches the entities exactly (test/e2e/storage-schema
 * checks that the ORM finds nothing to change after migrating).
 */
export class Migration0001Initial extends Migration {
  override name = 'migration-0001-initial';

  override async up(): Promise<void> {
    this.addSql(
      `create table "company" ("id" uuid not null, "name" varchar(250) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "company" add constraint "company_name_unique" unique ("name");`);

    this.addSql(
      `create table "flow" ("id" uuid not null, "company_id" uuid not null, "name" varchar(250) not null, "secret_hash" varchar(64) null, "secret_rotated_at" timestamptz null, "latest_version" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "flow" add constraint "flow_company_name_unique" unique ("company_id", "name");`);

    this.addSql(
      `create table "flow_version" ("id" uuid not null, "flow_id" uuid not null, "version" int not null, "activity" varchar(250) not null, "definition" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "flow_version" add constraint "flow_version_flow_version_unique" unique ("flow_id", "version");`,
    );
    this.addSql(
      `alter table "flow_version" add constraint "flow_version_activity_check" check (activity = lower(activity));`,
    );

    // The unique (company_id, activity) index: one published flow per activity.
    this.addSql(
      `create table "published_flow" ("flow_id" uuid not null, "company_id" uuid not null, "activity" varchar(250) not null, "flow_version_id" uuid not null, "published_at" timestamptz not null, primary key ("flow_id"));`,
    );
    this.addSql(
      `alter table "published_flow" add constraint "published_flow_company_activity_unique" unique ("company_id", "activity");`,
    );
    this.addSql(
      `alter table "published_flow" add constraint "published_flow_activity_check" check (activity = lower(activity));`,
    );

    this.addSql(
      `create table "service_user" ("id" uuid not null, "name" varchar(250) not null, "access_key_hash" varchar(64) not null, "access_key_expires_at" timestamptz null, "enabled" boolean not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "service_user" add constraint "service_user_name_unique" unique ("name");`);

    this.addSql(
      `create table "permission_assignment" ("id" uuid not null, "service_user_id" uuid not null, "company_id" uuid null, "permission_set" varchar(50) not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "permission_assignment_service_user_id_index" on "permission_assignment" ("service_user_id");`,
    );

    this.addSql(
      `alter table "flow" add constraint "flow_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "flow_version" add constraint "flow_version_flow_id_foreign" foreign key ("flow_id") references "flow" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "published_flow" add constraint "published_flow_flow_id_foreign" foreign key ("flow_id") references "flow" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "published_flow" add constraint "published_flow_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "published_flow" add constraint "published_flow_flow_version_id_foreign" foreign key ("flow_version_id") references "flow_version" ("id");`,
    );
    this.addSql(
      `alter table "permission_assignment" add constraint "permission_assignment_service_user_id_foreign" foreign key ("service_user_id") references "service_user" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "permission_assignment" add constraint "permission_assignment_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`,
    );
  }
}
