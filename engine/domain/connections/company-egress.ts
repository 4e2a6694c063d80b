// A company's own egress list: it narrows where the company's flows may call,
// on top of the operator's FLOWHOOK_EGRESS_ALLOW (it never opens more than
// that: an internal address needs both).
import type { EntityManager } from '@mikro-orm/postgresql';
import { formatEgressRule, parseEgressRules } from '../../../flow/egress-policy.ts';
import { requireCompany } from '../companies/companies.ts';
import { InvalidArgumentError } from '../../errors.ts';

export interface CompanyEgress {
  company: string;
  narrowed: boolean;
  allow: string[];
}

export async function setCompanyEgress(
  em: EntityManager,
  companyName: string,
  entries: string[],
  clear: boolean,
): Promise<CompanyEgress> {
  const company = await requireCompany(em, companyName);
  if (clear && entries.length > 0) throw new InvalidArgumentError('egress: give either entries or --clear, not both');
  if (!clear && entries.length === 0)
    throw new InvalidArgumentError('egress: give at least one host, host:port or CIDR (or --clear to remove the list)');
  let allow: string[] | null = null;
  if (!clear) {
    try {
      allow = parseEgressRules(entries.join(','), `the egress list of company "${company.name}"`).map(formatEgressRule);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  }
  company.egressAllow = allow;
  await em.flush();
  return egressOf(company.name, allow);
}

export async function getCompanyEgress(em: EntityManager, companyName: string): Promise<CompanyEgress> {
  const company = await requireCompany(em, companyName);
  return egressOf(company.name, company.egressAllow ?? null);
}

function egressOf(company: string, allow: string[] | null | undefined): CompanyEgress {
  return { company, narrowed: Array.isArray(allow), allow: allow ?? [] };
}
