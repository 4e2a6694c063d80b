// Opens the ORM on PostgreSQL and applies the committed migrations, so a new
// database (or a new release) is ready before the engine serves a call.
import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES } from './entities.ts';
import { Migration0001Initial } from './migrations/migration-0001-initial.ts';
import { Migration0002Records } from './migrations/migration-0002-records.ts';
import { Migration0003Applications } from './migrations/migration-0003-applications.ts';
import { Migration0004Connections } from './migrations/migration-0004-connections.ts';
import { Migration0005ServiceAccounts } from './migrations/migration-0005-service-accounts.ts';
import { Migration0006ApplicationIssuer } from './migrations/migration-0006-application-issuer.ts';
import { Migration0007HookSecrets } from './migrations/migration-0007-hook-secrets.ts';
import { Migration0008CallbackWaits } from './migrations/migration-0008-callback-waits.ts';
import { Migration0009EngineNodes } from './migrations/migration-0009-engine-nodes.ts';
import { Migration0010AuditLog } from './migrations/migration-0010-audit-log.ts';
import { Migration0011RecordLifetime } from './migrations/migration-0011-record-lifetime.ts';
import { Migration0012ProviderDeliveries } from './migrations/migration-0012-provider-deliveries.ts';
import { Migration0013Console } from './migrations/migration-0013-console.ts';
import { Migration0014FlowPause } from './migrations/migration-0014-flow-pause.ts';
import { Migration0015ConsoleSessionChecks } from './migrations/migration-0015-console-session-checks.ts';
import { Migration0016Deliveries } from './migrations/migration-0016-deliveries.ts';
import { Migration0017Alerts } from './migrations/migration-0017-alerts.ts';

export const MIGRATIONS = [
  { name: 'migration-0001-initial', class: Migration0001Initial },
  { name: 'migration-0002-records', class: Migration0002Records },
  { name: 'migration-0003-applications', class: Migration0003Applications },
  { name: 'migration-0004-connections', class: Migration0004Connections },
  { name: 'migration-0005-service-accounts', class: Migration0005ServiceAccounts },
  { name: 'migration-0006-application-issuer', class: Migration0006ApplicationIssuer },
  { name: 'migration-0007-hook-secrets', class: Migration0007HookSecrets },
  { name: 'migration-0008-callback-waits', class: Migration0008CallbackWaits },
  { name: 'migration-0009-engine-nodes', class: Migration0009EngineNodes },
  { name: 'migration-0010-audit-log', class: Migration0010AuditLog },
  { name: 'migration-0011-record-lifetime', class: Migration0011RecordLifetime },
  { name: 'migration-0012-provider-deliveries', class: Migration0012ProviderDeliveries },
  { name: 'migration-0013-console', class: Migration0013Console },
  { name: 'migration-0014-flow-pause', class: Migration0014FlowPause },
  { name: 'migration-0015-console-session-checks', class: Migration0015ConsoleSessionChecks },
  { name: 'migration-0016-deliveries', class: Migration0016Deliveries },
  { name: 'migration-0017-alerts', class: Migration0017Alerts },
];

export interface OrmOptions {
  databaseUrl: string;
  poolSize?: number;
  /** Milliseconds to wait for a connection before the call fails (bounded: never a hang). */
  connectTimeoutMs?: number;
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  const orm = await MikroORM.init({
    clientUrl: options.databaseUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    pool: { min: 0, max: options.poolSize ?? 10 },
    driverOptions: { connectionTimeoutMillis: options.connectTimeoutMs ?? 5000 },
    debug: false,
    allowGlobalContext: false,
    ensureDatabase: false,
  });
  await orm.migrator.up();
  return orm;
}
