// Finds the published flow for (company, activity) — spec §1 step 2. Activity
// matching is case-insensitive because activities are stored lowercase.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Company, PublishedFlow } from '../storage/entities.ts';
import { NotFoundError } from '../errors.ts';

export async function findPublishedFlow(em: EntityManager, companyName: string, activity: string): Promise<PublishedFlow> {
  const published = await em.findOne(
    PublishedFlow,
    { company: { name: companyName }, activity: activity.toLowerCase() },
    { populate: ['flow', 'flowVersion', 'company'] },
  );
  if (published) return published;
  const company = await em.findOne(Company, { name: companyName });
  if (!company) throw new NotFoundError(`Company "${companyName}" does not exist`);
  throw new NotFoundError(`No published flow is registered for activity "${activity}" in company "${companyName}"`);
}
