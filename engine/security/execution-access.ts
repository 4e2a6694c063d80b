// Whether a records-scope account may touch a company's data on behalf of an
// execution: with the grant the engine minted when it started that execution
// (the worker's way), or because the account was created for that company (a
// system that feeds the tables flows read). Anything else is refused, so a
// worker's token cannot reach another company's records or connections.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Company } from '../storage/entities.ts';
import { PermissionDeniedError } from '../errors.ts';
import { executionGrantMatches } from './execution-grants.ts';
import { actsForCompany, type ServiceAccountIdentity } from './service-account-tokens.ts';

export interface ExecutionAccess {
  company: string;
  executionId: string;
  grant: string;
}

export async function requireExecutionAccess(em: EntityManager, grantKey: Buffer, account: ServiceAccountIdentity, access: ExecutionAccess): Promise<void> {
  if (access.grant !== '') {
    if (executionGrantMatches(grantKey, access.executionId, access.company, access.grant)) return;
    throw new PermissionDeniedError(`the execution grant does not match execution "${access.executionId}" of company "${access.company}"`);
  }
  if (!account.allCompanies && account.companyIds.length === 0) {
    throw new PermissionDeniedError(
      `service account "${account.name}" works only for executions it is handed: send the execution's id and grant (the workflow input's executionGrant), ` +
        `or use a records account created for company "${access.company}" (flowhook service-account create <name> --scope records --company <company>)`,
    );
  }
  if (account.allCompanies) return;
  const company = await em.findOne(Company, { name: access.company }, { fields: ['id'] });
  if (!company || !actsForCompany(account, company.id)) throw new PermissionDeniedError(`service account "${account.name}" may not touch the records of company "${access.company}"`);
}
