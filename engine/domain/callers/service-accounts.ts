// Service accounts: one bearer token per calling process (facade, worker,
// CLI, an internal service), with a scope (invoke | records | admin) and, for
// invoke and records, the companies it acts for. Tokens are shown once and
// stored as SHA-256; disable and rotate take effect in every engine at once
// (the `users` topic of the change feed clears every engine's token cache).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import { Company, ServiceAccount } from '../../infrastructure/storage/entities.ts';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { shellArg } from '../../../common/shell-words.ts';
import {
  generateServiceAccountToken,
  isServiceAccountScope,
  SERVICE_ACCOUNT_SCOPES,
  tokenHash,
  tokenHint,
  type ServiceAccountScope,
} from './service-account-tokens.ts';
import { requireCompany } from '../companies/companies.ts';
import { saveCallerChange } from './caller-changes.ts';

export interface NewServiceAccount {
  name: string;
  scope: string;
  /** Company names; invoke needs at least one unless allCompanies. */
  companies: readonly string[];
  allCompanies: boolean;
  forwardsCallers: boolean;
}

/** An account as operators see it: never the token or its hash. */
export interface ServiceAccountView {
  account: ServiceAccount;
  /** Company names, sorted. */
  companies: string[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export async function createServiceAccount(
  em: EntityManager,
  changes: ChangeAnnouncer,
  request: NewServiceAccount,
  token = generateServiceAccountToken(),
): Promise<{ view: ServiceAccountView; token: string }> {
  const name = request.name.trim();
  if (!NAME.test(name))
    throw new InvalidArgumentError(
      'service account name: 1-100 characters of letters, digits, . _ - (starting with a letter or digit)',
    );
  const scope = requireScope(request.scope);
  const companies = await companiesFor(em, scope, request);
  if (request.forwardsCallers && scope !== 'invoke')
    throw new InvalidArgumentError("--forwards-callers is for invoke accounts only (the facade's)");
  const account = em.create(ServiceAccount, {
    id: randomUUID(),
    name,
    scope,
    companyIds: companies.map((company) => company.id),
    allCompanies: request.allCompanies,
    forwardsCallers: request.forwardsCallers,
    tokenHash: tokenHash(token),
    tokenHint: tokenHint(token),
    enabled: true,
    createdAt: new Date(),
    rotatedAt: null,
  });
  await saveCallerChange(
    em,
    changes,
    () =>
      new AlreadyExistsError(`Service account "${name}" already exists; see it with: flowhook service-account list`),
  );
  return { view: { account, companies: companies.map((company) => company.name).sort() }, token };
}

export async function listServiceAccounts(em: EntityManager): Promise<ServiceAccountView[]> {
  const accounts = await em.find(ServiceAccount, {}, { orderBy: { name: 'asc' } });
  const ids = [...new Set(accounts.flatMap((account) => account.companyIds))];
  const names = new Map(
    (ids.length ? await em.find(Company, { id: { $in: ids } }) : []).map((company) => [company.id, company.name]),
  );
  return accounts.map((account) => ({
    account,
    companies: account.companyIds.map((id) => names.get(id) ?? `(deleted company ${id})`).sort(),
  }));
}

/** A new token replaces the old one at once, in every engine; the new one is returned once. */
export async function rotateServiceAccountToken(
  em: EntityManager,
  changes: ChangeAnnouncer,
  name: string,
): Promise<{ account: ServiceAccount; token: string }> {
  const account = await requireServiceAccount(em, name);
  const token = generateServiceAccountToken();
  account.tokenHash = tokenHash(token);
  account.tokenHint = tokenHint(token);
  account.rotatedAt = new Date();
  await saveCallerChange(em, changes);
  return { account, token };
}

export async function deleteServiceAccount(em: EntityManager, changes: ChangeAnnouncer, name: string): Promise<void> {
  em.remove(await requireServiceAccount(em, name));
  await saveCallerChange(em, changes);
}

export async function requireServiceAccount(em: EntityManager, name: string): Promise<ServiceAccount> {
  const account = await em.findOne(ServiceAccount, { name });
  if (!account)
    throw new NotFoundError(
      `Service account "${name}" does not exist; see the accounts with: flowhook service-account list`,
    );
  return account;
}

function requireScope(scope: string): ServiceAccountScope {
  const normalized = scope.trim().toLowerCase();
  if (!isServiceAccountScope(normalized))
    throw new InvalidArgumentError(`scope must be one of ${SERVICE_ACCOUNT_SCOPES.join(', ')}; got "${scope}"`);
  return normalized;
}

/**
 * invoke accounts act for the companies they name, or for all when that is
 * said explicitly (secure by default: no company is not "every company").
 * records accounts may name companies whose records they own (a system that
 * feeds the tables flows read); without any, they work only for executions
 * they are handed. admin accounts are not bound to companies.
 */
async function companiesFor(
  em: EntityManager,
  scope: ServiceAccountScope,
  request: NewServiceAccount,
): Promise<Company[]> {
  if (scope === 'admin' && (request.companies.length > 0 || request.allCompanies))
    throw new InvalidArgumentError('admin accounts are not bound to companies; drop --company/--all-companies');
  if (request.allCompanies && request.companies.length > 0)
    throw new InvalidArgumentError('--all-companies and --company exclude each other');
  if (scope === 'invoke' && !request.allCompanies && request.companies.length === 0) {
    throw new InvalidArgumentError(
      `an invoke account needs the companies it may call for: --company <name> (repeatable), or --all-companies; e.g. flowhook service-account create ${shellArg(request.name)} --scope invoke --company CRONUS`,
    );
  }
  const companies: Company[] = [];
  for (const name of new Set(request.companies)) companies.push(await requireCompany(em, name));
  return companies;
}
