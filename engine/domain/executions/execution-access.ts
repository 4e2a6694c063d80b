// Whether a records-scope account may act on behalf of an execution. Two ways in:
//
// - the grant the engine minted when it started that execution (the worker's
//   way), good only while the execution runs: a grant read from a closed
//   execution's history opens nothing;
// - an account created for the company (a system that feeds the tables flows
//   read), for RecordService only: it sends no grant and gets records, never
//   connection secrets, egress lists or callback URLs (requireLiveGrant).
//
// Anything else is refused, so a worker's token cannot reach another
// company's records or connections.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Company } from '../../infrastructure/storage/entities.ts';
import { PermissionDeniedError } from '../../errors.ts';
import { readExecutionGrant } from './execution-grants.ts';
import type { ExecutionLiveness } from './execution-liveness.ts';
import { actsForCompany, type ServiceAccountIdentity } from '../callers/service-account-tokens.ts';

export interface ExecutionAccess {
  company: string;
  executionId: string;
  grant: string;
}

/** What checking a grant needs: the engines' grant key and Temporal's word on whether the execution runs. */
export interface GrantCheck {
  grantKey: Buffer;
  liveness: ExecutionLiveness;
}

/**
 * For what only a running execution gets (OutboundService, CallbackService): a worker's account —
 * records scope, created for no company, so it can act only through grants — with the execution's
 * grant, and nothing else. A records account created for companies feeds their tables; it gets no
 * connection secret even with a grant read from a running execution's history.
 */
export async function requireLiveGrant(
  check: GrantCheck,
  account: ServiceAccountIdentity,
  access: ExecutionAccess,
  what: string,
): Promise<void> {
  if (account.allCompanies || account.companyIds.length > 0) {
    throw new PermissionDeniedError(
      `${what} only to a worker's account for a running execution: service account "${account.name}" was created for ${account.allCompanies ? 'all companies' : 'companies'}, ` +
        'to read and write their records (RecordService) and nothing else; workers use a records account created without --company (flowhook service-account create <name> --scope records)',
    );
  }
  if (access.grant === '') {
    throw new PermissionDeniedError(
      `${what} only for a running execution: send its id and grant (the workflow input's executionGrant); service account "${account.name}" sent no grant`,
    );
  }
  await requireGrant(check, access);
}

/** For RecordService: a running execution's grant, or (without a grant) an account created for the company. */
export async function requireExecutionAccess(
  em: EntityManager,
  check: GrantCheck,
  account: ServiceAccountIdentity,
  access: ExecutionAccess,
): Promise<void> {
  if (access.grant !== '') return requireGrant(check, access);
  if (!account.allCompanies && account.companyIds.length === 0) {
    throw new PermissionDeniedError(
      `service account "${account.name}" works only for executions it is handed: send the execution's id and grant (the workflow input's executionGrant), ` +
        `or use a records account created for company "${access.company}" (flowhook service-account create <name> --scope records --company <company>)`,
    );
  }
  if (account.allCompanies) return;
  const company = await em.findOne(Company, { name: access.company }, { fields: ['id'] });
  if (!company || !actsForCompany(account, company.id))
    throw new PermissionDeniedError(
      `service account "${account.name}" may not touch the records of company "${access.company}"`,
    );
}

/** The grant was minted for this execution and company, and the execution still runs. */
async function requireGrant(check: GrantCheck, access: ExecutionAccess): Promise<void> {
  const grant = readExecutionGrant(check.grantKey, access.executionId, access.company, access.grant);
  if (!grant)
    throw new PermissionDeniedError(
      `the execution grant does not match execution "${access.executionId}" of company "${access.company}"`,
    );
  // After the MAC: only ids the engine itself started reach Temporal and the cache.
  if (!(await check.liveness.stillRuns(access.executionId, grant.runMark))) {
    throw new PermissionDeniedError(
      `execution "${access.executionId}" no longer runs the run this grant was made for: a grant ends with its run`,
    );
  }
}
