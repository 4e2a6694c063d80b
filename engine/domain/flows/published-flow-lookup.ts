// Finds the published flow for (company, activity), the call's first lookup. Activity
// matching is case-insensitive because activities are stored lowercase. Found
// flows are kept as plain snapshots in a cache the change feed clears whenever
// a flow is published, unpublished or its secret rotated (in any engine).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { ChangeFeed } from '../../infrastructure/cache/change-feed.ts';
import { SnapshotCache, type SnapshotCacheOptions } from '../../infrastructure/cache/snapshot-cache.ts';
import { Company, FlowVersion, PublishedFlow } from '../../infrastructure/storage/entities.ts';
import { shellArg } from '../../../common/shell-words.ts';
import { NotFoundError } from '../../errors.ts';
import { companyNotFoundMessage } from '../companies/companies.ts';

export interface PublishedFlowSnapshot {
  company: { id: string; name: string };
  /** `paused`: `flowhook flow pause` holds the flow's executions (engine/domain/flow-control/flow-pauses.ts). */
  flow: { name: string; secretHash: string | null; paused: boolean };
  flowVersion: { version: number; definition: FlowJson };
}

export interface PublishedFlowLookup {
  find(em: EntityManager, companyName: string, activity: string): Promise<PublishedFlowSnapshot>;
  /**
   * The same lookup without explaining a miss: for the provider route, which answers unauthenticated
   * callers one 404 whatever was missing, so a miss costs one query, not three.
   */
  findIfPublished(em: EntityManager, companyName: string, activity: string): Promise<PublishedFlowSnapshot | undefined>;
}

export function createPublishedFlowLookup(
  feed: ChangeFeed | undefined,
  cacheOptions: SnapshotCacheOptions = {},
): PublishedFlowLookup {
  const cache = new SnapshotCache<PublishedFlowSnapshot>(feed, 'flows', cacheOptions);
  const findIfPublished = (em: EntityManager, companyName: string, activity: string) => {
    const normalized = activity.toLowerCase();
    return cache.get(`${companyName}\u0000${normalized}`, () => load(em, companyName, normalized));
  };
  return {
    findIfPublished,
    async find(em, companyName, activity) {
      const found = await findIfPublished(em, companyName, activity);
      if (found) return found;
      const company = await em.findOne(Company, { name: companyName });
      if (!company) throw new NotFoundError(await companyNotFoundMessage(em, companyName, 'caller'));
      throw new NotFoundError(await unpublishedMessage(em, company, activity));
    },
  };
}

/**
 * A caller of this company (the one thing it may learn about) whose activity only a draft has: the
 * next step is to publish it, and the answer says how. An activity no flow has answers as before.
 */
async function unpublishedMessage(em: EntityManager, company: Company, activity: string): Promise<string> {
  const versions = await em.find(
    FlowVersion,
    { flow: { company }, activity: activity.toLowerCase() },
    { populate: ['flow'], orderBy: { version: 'desc' }, limit: 50 },
  );
  // Only a flow whose latest version has the activity: `flow publish` publishes that one.
  const draft = versions.find((version) => version.version === version.flow.latestVersion);
  if (!draft) return `No published flow is registered for activity "${activity}" in company "${company.name}"`;
  const publishedElsewhere = (await em.count(PublishedFlow, { flow: draft.flow })) > 0;
  const what = publishedElsewhere
    ? `version ${draft.version} of flow "${draft.flow.name}", which has activity "${draft.activity}", is not published`
    : `flow "${draft.flow.name}" (activity "${draft.activity}") has no published version`;
  return `${what[0]!.toUpperCase()}${what.slice(1)}; publish it with: flowhook flow publish ${shellArg(company.name)} ${shellArg(draft.flow.name)}`;
}

async function load(
  em: EntityManager,
  companyName: string,
  activity: string,
): Promise<PublishedFlowSnapshot | undefined> {
  const published = await em.findOne(
    PublishedFlow,
    { company: { name: companyName }, activity },
    { populate: ['flow', 'flowVersion', 'company'] },
  );
  if (!published) return undefined;
  return {
    company: { id: published.company.id, name: published.company.name },
    flow: {
      name: published.flow.name,
      secretHash: published.flow.secretHash ?? null,
      paused: published.flow.pausedAt != null,
    },
    flowVersion: { version: published.flowVersion.version, definition: published.flowVersion.definition },
  };
}
