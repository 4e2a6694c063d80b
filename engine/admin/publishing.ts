// Publishing makes one version of a flow the one callers reach. It validates
// the definition (spec §2.3, §2.4, §7) and registers the activity; the unique
// index on (company, activity) settles races between two publishes.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { connectionsUsedBy, validateFlow, type FlowLimits } from '../../workflows/shared/index.ts';
import type { ChangeAnnouncer } from '../cache/change-feed.ts';
import { Connection, Flow, FlowVersion, PublishedFlow } from '../storage/entities.ts';
import { AlreadyExistsError, FailedPreconditionError, InvalidArgumentError, NotFoundError } from '../errors.ts';

export async function publishFlow(em: EntityManager, changes: ChangeAnnouncer, flow: Flow, versionNumber: number, limits: FlowLimits): Promise<{ warnings: string[] }> {
  const version = await em.findOne(FlowVersion, { flow, version: versionNumber || flow.latestVersion });
  if (!version) throw new NotFoundError(`Flow "${flow.name}" has no version ${versionNumber}`);
  if (!flow.secretHash) {
    throw new FailedPreconditionError(`trigger.webhook: the secret is missing, so the configuration is invalid; generate one with "flowhook secret rotate"`);
  }
  const problems = validateFlow(version.definition, limits);
  problems.errors.push(...(await missingConnections(em, flow, version.definition.steps ?? [])));
  if (problems.errors.length > 0) throw new InvalidArgumentError(`Flow "${flow.name}" v${version.version} cannot be published:\n- ${problems.errors.join('\n- ')}`);
  if (version.definition.company !== flow.company.name) throw new InvalidArgumentError(`company: the definition names "${version.definition.company}" but the flow belongs to "${flow.company.name}"`);

  const holder = await em.findOne(PublishedFlow, { company: flow.company, activity: version.activity, flow: { $ne: flow } }, { populate: ['flow'] });
  if (holder) throw duplicateActivity(version.activity, holder.flow.name);

  const existing = await em.findOne(PublishedFlow, { flow });
  if (existing) {
    existing.activity = version.activity;
    existing.flowVersion = version;
    existing.publishedAt = new Date();
  } else {
    em.create(PublishedFlow, { flow, company: flow.company, activity: version.activity, flowVersion: version, publishedAt: new Date() });
  }
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw duplicateActivity(version.activity, 'another flow');
    throw error;
  }
  await changes.announce(em, 'flows');
  return { warnings: problems.warnings };
}

export async function unpublishFlow(em: EntityManager, changes: ChangeAnnouncer, flow: Flow): Promise<void> {
  await em.nativeDelete(PublishedFlow, { flow });
  await changes.announce(em, 'flows');
}

function duplicateActivity(activity: string, holder: string): AlreadyExistsError {
  return new AlreadyExistsError(
    `trigger.webhook.activity: "${activity}" is already published by flow "${holder}" in this company (activities are compared ignoring case; unpublish that flow first)`,
  );
}

/** A step that names a connection the company lacks would fail at run time: refuse it at publish, naming the step. */
async function missingConnections(em: EntityManager, flow: Flow, steps: NonNullable<FlowVersion['definition']['steps']>): Promise<string[]> {
  const used = connectionsUsedBy(steps);
  if (used.size === 0) return [];
  const existing = await em.find(Connection, { company: flow.company, name: { $in: [...used.keys()] } }, { fields: ['name'] });
  const have = new Set(existing.map((connection) => connection.name));
  const problems: string[] = [];
  for (const [name, paths] of used) {
    if (have.has(name)) continue;
    for (const path of paths) problems.push(`${path}: company "${flow.company.name}" has no connection "${name}" (create it with: flowhook connection set …)`);
  }
  return problems;
}
