// "Rotate Secret": a new 32-character secret; the previous one
// stops working as soon as this commits.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import { Flow, FlowVersion, PublishedFlow, type Company } from '../../infrastructure/storage/entities.ts';
import { FailedPreconditionError, NotFoundError } from '../../errors.ts';
import { generateRandomText, SECRET_LENGTH, sha256Hex } from '../callers/credentials.ts';
import { shellArg } from '../../../common/shell-words.ts';
import { escapeLikePattern } from '../../infrastructure/storage/like-pattern.ts';
import { requireCompany } from '../companies/companies.ts';
import { requireFlow } from './flows.ts';
import { secretRotateCommand } from './secret-hints.ts';

/** Whose secret: the flow with that activity (the CLI's `secret rotate`), or the flow by name (the console's card). */
export type SecretHolder = { activity: string } | { flowName: string };

export async function rotateSecret(
  em: EntityManager,
  changes: ChangeAnnouncer,
  companyName: string,
  holder: SecretHolder,
): Promise<{ flow: Flow; secret: string }> {
  const flow =
    'flowName' in holder
      ? await requireFlow(em, companyName, holder.flowName)
      : await findFlowByActivity(em, companyName, holder.activity.trim().toLowerCase());
  const secret = generateRandomText(SECRET_LENGTH);
  flow.secretHash = sha256Hex(secret);
  flow.secretRotatedAt = new Date();
  await em.flush();
  // Engines holding the old hash in their cache drop it now.
  await changes.announce(em, 'flows');
  return { flow, secret };
}

/** The published flow with that activity, else the one flow whose latest draft uses it. */
async function findFlowByActivity(em: EntityManager, companyName: string, activity: string): Promise<Flow> {
  const company = await requireCompany(em, companyName);
  const published = await em.findOne(PublishedFlow, { company, activity }, { populate: ['flow', 'flow.company'] });
  if (published) return published.flow;
  const drafts = await em.find(Flow, { company }, { populate: ['company'] });
  const matching: Flow[] = [];
  for (const flow of drafts) {
    const latest = await em.findOne(FlowVersion, { flow, version: flow.latestVersion });
    if (latest?.activity === activity) matching.push(flow);
  }
  if (matching.length === 0) throw new NotFoundError(await noSuchActivity(em, company, companyName, activity));
  if (matching.length > 1) {
    throw new FailedPreconditionError(
      `Several unpublished flows use activity "${activity}" (${matching.map((f) => f.name).join(', ')}); publish one first`,
    );
  }
  return matching[0]!;
}

/** `secret rotate` takes the activity, not the flow name; a flow name given instead gets the right command. */
async function noSuchActivity(
  em: EntityManager,
  company: Company,
  companyName: string,
  activity: string,
): Promise<string> {
  const missing = `No flow with activity "${activity}" exists in company "${companyName}"`;
  const named = await em.findOne(Flow, { company, name: { $ilike: escapeLikePattern(activity) } });
  if (!named) return `${missing}; list the activities with: flowhook flow list --company ${shellArg(companyName)}`;
  const latest = await em.findOne(FlowVersion, { flow: named, version: named.latestVersion });
  const itsActivity = latest?.activity ?? '';
  return `${missing}. "${named.name}" is the name of a flow; secrets belong to the activity callers send${itsActivity ? ` (this flow's is "${itsActivity}")` : ''}: ${secretRotateCommand(companyName, itsActivity)}`;
}
