import { Migration } from '@mikro-orm/migrations';

/**
 * Applications bound to their issuer (and optionally tenant): a client id is
 * only unique within its issuer. Rows registered before keep a null issuer
 * and their tokens are refused (`app_issuer_unset`) until an operator binds
 * them with `flowhook app register <clientId> --issuer <url>`: guessing the
 * issuer would let any trusted issuer's token with that client id in.
 * Matches the entities exactly.
 */
export class Migration0006ApplicationIssuer extends Migration {
  override name = 'migration-0006-application-issuer';

  override async up(): Promise<void> {
    this.addSql(
      `alter table "identity_application" add column "issuer" text null, add column "tenant_id" varchar(250) null;`,
    );
    this.addSql(`alter table "identity_application" drop constraint "identity_application_client_id_unique";`);
    this.addSql(
      `alter table "identity_application" add constraint "identity_application_issuer_client_id_unique" unique ("issuer", "client_id");`,
    );
  }
}
