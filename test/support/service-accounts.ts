// The service accounts a test stack runs with, made the way `flowhook start`
// makes them: the facade's (invoke, all companies, forwards callers), the
// worker's (records, executions only), and for tests that act as other
// systems: an internal invoke account, a records account for all companies
// (a system feeding the tables flows read) and an admin account.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../../engine/infrastructure/cache/change-feed.ts';
import { createServiceAccount, type NewServiceAccount } from '../../engine/domain/callers/service-accounts.ts';
import { openOrm } from '../../engine/infrastructure/storage/orm.ts';

export interface StackTokens {
  facade: string;
  worker: string;
  /** An internal service's invoke account (all companies, its own caller). */
  internal: string;
  /** records, all companies: stands in for the systems that own the records flows read. */
  records: string;
  admin: string;
}

const SPECS: Record<keyof StackTokens, NewServiceAccount> = {
  facade: { name: 'test-facade', scope: 'invoke', companies: [], allCompanies: true, forwardsCallers: true },
  worker: { name: 'test-worker', scope: 'records', companies: [], allCompanies: false, forwardsCallers: false },
  internal: { name: 'test-internal', scope: 'invoke', companies: [], allCompanies: true, forwardsCallers: false },
  records: { name: 'test-records', scope: 'records', companies: [], allCompanies: true, forwardsCallers: false },
  admin: { name: 'test-admin', scope: 'admin', companies: [], allCompanies: false, forwardsCallers: false },
};

export async function provisionStackAccounts(orm: MikroORM, changes: ChangeAnnouncer): Promise<StackTokens> {
  const tokens = {} as StackTokens;
  for (const [role, spec] of Object.entries(SPECS) as [keyof StackTokens, NewServiceAccount][]) {
    tokens[role] = (await createServiceAccount(orm.em.fork(), changes, spec)).token;
  }
  return tokens;
}

/** For stacks whose engine runs in a child process: migrate the database and make the accounts first. */
export async function provisionAccountsBeforeEngine(databaseUrl: string): Promise<StackTokens> {
  const orm = await openOrm({ databaseUrl });
  try {
    // No engine runs yet, so no cache needs telling.
    return await provisionStackAccounts(orm, { announce: async () => undefined });
  } finally {
    await orm.close(true);
  }
}
