// Publishing makes one version of a flow the one callers reach. It validates
// the definition (flow-validation.ts: a webhook trigger with an activity,
// respond status codes 200..599, …) and registers the activity; the unique
// index on (company, activity) settles races between two publishes.
//
// The checks are separate from the write so `flow apply --publish` can run them
// before it stores anything: a definition that cannot be published leaves no
// version, no flow and no secret behind.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { connectionsUsedBy, validateFlow, type FlowLimits, type FlowProblems } from '../../../flow/index.ts';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import { Connection, Flow, FlowVersion, PublishedFlow, type Company } from '../../infrastructure/storage/entities.ts';
import { hasHookSecret, hookSecretSetCommand } from './hook-secrets.ts';
import { AlreadyExistsError, FailedPreconditionError, InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { secretRotateCommand } from './secret-hints.ts';
import { flushOrRefuseDuplicate } from '../../infrastructure/storage/unique-flush.ts';

/** What a publish is about: the flow by company and name (it may not exist yet) and the definition. */
export interface PublishCandidate {
  company: Company;
  flowName: string;
  /** For messages: `v3`, or `(new)` before the first version exists. */
  versionLabel: string;
  definition: FlowJson;
}

/** Every check a publish makes, without writing anything; returns the warnings. */
export async function checkPublishable(
  em: EntityManager,
  candidate: PublishCandidate,
  limits: FlowLimits,
): Promise<{ warnings: string[] }> {
  const { company, flowName, definition } = candidate;
  const problems = await definitionProblems(em, company, definition, limits);
  if (problems.errors.length > 0)
    throw new InvalidArgumentError(
      `Flow "${flowName}" ${candidate.versionLabel} cannot be published:\n- ${problems.errors.join('\n- ')}`,
    );
  if (definition.company !== company.name) throw new InvalidArgumentError(companyMismatch(definition, company));
  const holder = await activityHolder(em, candidate);
  if (holder) throw duplicateActivity(activityOf(definition), holder);
  return { warnings: [...problems.warnings, ...(await routeWarnings(em, company, definition))] };
}

/**
 * The same checks as checkPublishable, every problem collected instead of the first kind thrown:
 * what the flow card shows before anyone presses Publish (FlowAdminService.CheckFlow).
 */
export async function publishProblems(
  em: EntityManager,
  candidate: PublishCandidate,
  limits: FlowLimits,
): Promise<FlowProblems> {
  const { company, definition } = candidate;
  const problems = await definitionProblems(em, company, definition, limits);
  if (definition.company !== company.name) problems.errors.push(companyMismatch(definition, company));
  const holder = await activityHolder(em, candidate);
  if (holder) problems.errors.push(duplicateActivity(activityOf(definition), holder).message);
  problems.warnings.push(...(await routeWarnings(em, company, definition)));
  return problems;
}

/** The flow's own rules (flow/flow-validation.ts) and the connections its steps name. */
async function definitionProblems(
  em: EntityManager,
  company: Company,
  definition: FlowJson,
  limits: FlowLimits,
): Promise<FlowProblems> {
  const problems = validateFlow(definition, limits);
  problems.errors.push(...(await missingConnections(em, company, definition.steps ?? [])));
  return problems;
}

function companyMismatch(definition: FlowJson, company: Company): string {
  return `company: the definition names "${definition.company}" but the flow belongs to "${company.name}"`;
}

/** Another flow of the company that publishes the same activity (compared lowercase), by name. */
async function activityHolder(em: EntityManager, candidate: PublishCandidate): Promise<string | undefined> {
  const activity = activityOf(candidate.definition);
  if (activity === '') return undefined;
  const holder = await em.findOne(
    PublishedFlow,
    { company: candidate.company, activity, flow: { name: { $ne: candidate.flowName } } },
    { populate: ['flow'] },
  );
  return holder?.flow.name;
}

/** Not an error: the secret may well be set right after publishing; until then the route refuses every request. */
async function routeWarnings(em: EntityManager, company: Company, definition: FlowJson): Promise<string[]> {
  const activity = activityOf(definition);
  if (!definition.trigger?.webhook?.direct || (await hasHookSecret(em, company, activity))) return [];
  return [
    `trigger.webhook.direct: no signing secret yet, so the provider route refuses every request; set it with: ${hookSecretSetCommand(company.name, activity)}`,
  ];
}

/** Publishes a stored version and tells every engine; for `flow publish`. */
export async function publishFlow(
  em: EntityManager,
  changes: ChangeAnnouncer,
  flow: Flow,
  versionNumber: number,
  limits: FlowLimits,
): Promise<{ warnings: string[] }> {
  const result = await publishVersion(em, flow, versionNumber || flow.latestVersion, limits);
  await changes.announce(em, 'flows');
  return result;
}

/**
 * Checks and writes the published entry, without announcing: inside a
 * transaction the caller announces after the commit, so no engine re-reads
 * the old state between the cache drop and the commit.
 */
export async function publishVersion(
  em: EntityManager,
  flow: Flow,
  versionNumber: number,
  limits: FlowLimits,
): Promise<{ warnings: string[] }> {
  const version = await em.findOne(FlowVersion, { flow, version: versionNumber });
  if (!version)
    throw new NotFoundError(
      `Flow "${flow.name}" has no version ${versionNumber} (it has versions 1..${flow.latestVersion})`,
    );
  await em.populate(flow, ['company']);
  if (!flow.secretHash) {
    throw new FailedPreconditionError(
      `trigger.webhook: the secret is missing, so the configuration is invalid; generate one with: ${secretRotateCommand(flow.company.name, version.activity)}`,
    );
  }
  const { warnings } = await checkPublishable(
    em,
    { company: flow.company, flowName: flow.name, versionLabel: `v${version.version}`, definition: version.definition },
    limits,
  );

  const existing = await em.findOne(PublishedFlow, { flow });
  if (existing) {
    existing.activity = version.activity;
    existing.flowVersion = version;
    existing.publishedAt = new Date();
  } else {
    em.create(PublishedFlow, {
      flow,
      company: flow.company,
      activity: version.activity,
      flowVersion: version,
      publishedAt: new Date(),
    });
  }
  await flushOrRefuseDuplicate(em, () => duplicateActivity(version.activity, 'another flow'));
  return { warnings };
}

export async function unpublishFlow(em: EntityManager, changes: ChangeAnnouncer, flow: Flow): Promise<void> {
  await em.nativeDelete(PublishedFlow, { flow });
  await changes.announce(em, 'flows');
}

/** Activities are stored lowercase, so two that differ only in case are one. */
export function activityOf(definition: FlowJson): string {
  return (definition.trigger?.webhook?.activity ?? '').trim().toLowerCase();
}

function duplicateActivity(activity: string, holder: string): AlreadyExistsError {
  return new AlreadyExistsError(
    `trigger.webhook.activity: "${activity}" is already published by flow "${holder}" in this company (activities are compared ignoring case; unpublish that flow first)`,
  );
}

/** A step that names a connection the company lacks would fail at run time: refuse it at publish, naming the step. */
async function missingConnections(
  em: EntityManager,
  company: Company,
  steps: NonNullable<FlowJson['steps']>,
): Promise<string[]> {
  const used = connectionsUsedBy(steps);
  if (used.size === 0) return [];
  const existing = await em.find(Connection, { company, name: { $in: [...used.keys()] } }, { fields: ['name'] });
  const have = new Set(existing.map((connection) => connection.name));
  const problems: string[] = [];
  for (const [name, paths] of used) {
    if (have.has(name)) continue;
    for (const path of paths)
      problems.push(
        `${path}: company "${company.name}" has no connection "${name}" (create it with: flowhook connection set …)`,
      );
  }
  return problems;
}
