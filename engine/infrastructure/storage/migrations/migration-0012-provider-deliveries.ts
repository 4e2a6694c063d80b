import { Migration } from '@mikro-orm/migrations';

/**
 * Accepted provider deliveries of routes without a signed timestamp
 * (engine/infrastructure/storage/provider-delivery.entity.ts), remembered for the replay
 * window, with an index for the purge by age. Matches the entity exactly.
 */
export class Migration0012ProviderDeliveries extends Migration {
  override name = 'migration-0012-provider-deliveries';

  override async up(): Promise<void> {
    this.addSql(
      `create table "provider_delivery" ("key" varchar(64) not null, "received_at" timestamptz not null, primary key ("key"));`,
    );
    this.addSql(`create index "provider_delivery_received_at_index" on "provider_delivery" ("received_at");`);
  }
}
