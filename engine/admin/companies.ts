import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Company } from '../storage/entities.ts';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from '../errors.ts';

export async function createCompany(em: EntityManager, rawName: string): Promise<Company> {
  const name = rawName.trim();
  if (name === '') throw new InvalidArgumentError('company name is required');
  if (name.length > 250) throw new InvalidArgumentError('company name: at most 250 characters');
  const company = em.create(Company, { id: randomUUID(), name, createdAt: new Date() });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new AlreadyExistsError(`Company "${name}" already exists`);
    throw error;
  }
  return company;
}

export async function requireCompany(em: EntityManager, name: string): Promise<Company> {
  const company = await em.findOne(Company, { name });
  if (!company) throw new NotFoundError(`Company "${name}" does not exist`);
  return company;
}

export function listCompanies(em: EntityManager): Promise<Company[]> {
  return em.find(Company, {}, { orderBy: { name: 'asc' } });
}
