import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { exceedsNameLimit, nameLimitRule } from '../../../common/name-limits.ts';
import { shellArg } from '../../../common/shell-words.ts';
import { Company } from '../../infrastructure/storage/entities.ts';
import { escapeLikePattern } from '../../infrastructure/storage/like-pattern.ts';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from '../../errors.ts';

export async function createCompany(em: EntityManager, rawName: string): Promise<Company> {
  const name = rawName.trim();
  if (name === '') throw new InvalidArgumentError('company name is required');
  if (exceedsNameLimit('company', name)) throw new InvalidArgumentError(nameLimitRule('company'));
  const company = em.create(Company, { id: randomUUID(), name, createdAt: new Date() });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new AlreadyExistsError(`Company "${name}" already exists`);
    throw error;
  }
  return company;
}

export async function requireCompany(em: EntityManager, name: string): Promise<Company> {
  const company = await em.findOne(Company, { name });
  if (!company) throw new NotFoundError(await companyNotFoundMessage(em, name));
  return company;
}

/**
 * Company names are exact (they are the `company` query parameter callers
 * send), so `default` is not `Default`: say which one was meant, or how to
 * create it. Webhook callers (already authenticated when they get here) get
 * the spelling hint but no admin command.
 */
export async function companyNotFoundMessage(
  em: EntityManager,
  name: string,
  audience: 'admin' | 'caller' = 'admin',
): Promise<string> {
  const sameLetters = await em.find(
    Company,
    { name: { $ilike: escapeLikePattern(name) } },
    { fields: ['name'], limit: 3 },
  );
  if (sameLetters.length > 0) {
    const names = sameLetters.map((company) => `"${company.name}"`).join(' or ');
    return `Company "${name}" does not exist; did you mean ${names}? (company names are case-sensitive)`;
  }
  // A webhook caller cannot create companies; an operator can.
  if (audience === 'caller') return `Company "${name}" does not exist`;
  return `Company "${name}" does not exist; create it with: flowhook company create ${shellArg(name)}`;
}

export function listCompanies(em: EntityManager): Promise<Company[]> {
  return em.find(Company, {}, { orderBy: { name: 'asc' } });
}
