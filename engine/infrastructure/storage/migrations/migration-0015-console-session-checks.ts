import { Migration } from '@mikro-orm/migrations';

/**
 * Console sessions (engine/infrastructure/storage/console-session.entity.ts): an admin-token
 * session keeps a keyed hash of its token instead of the token's plain SHA-256
 * (`token_mac` replaces `token_hash`), and an OpenID Connect session keeps
 * what re-reads its roles at the identity provider (`checked_at`,
 * `provider_grant`, `check_held_until`). Every existing session ends: none has
 * a keyed hash or a refresh token to be checked with, so each person signs in
 * once more. Matches the entity exactly.
 */
export class Migration0015ConsoleSessionChecks extends Migration {
  override name = 'migration-0015-console-session-checks';

  override async up(): Promise<void> {
    this.addSql(`delete from "console_session";`);
    this.addSql(`alter table "console_session" drop column "token_hash";`);
    this.addSql(`alter table "console_session" add column "token_mac" varchar(64) null;`);
    this.addSql(`alter table "console_session" add column "checked_at" timestamptz not null;`);
    this.addSql(`alter table "console_session" add column "provider_grant" text null;`);
    this.addSql(`alter table "console_session" add column "check_held_until" timestamptz null;`);
  }
}
