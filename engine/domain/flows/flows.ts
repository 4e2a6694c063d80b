// Flows as code: applying a flow file saves a new immutable draft version
// (drafts may be invalid; only publishing validates — and `apply --publish`
// validates before it saves).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { exceedsNameLimit, NAME_LIMITS } from '../../../common/name-limits.ts';
import type { FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { Flow, FlowVersion, PublishedFlow } from '../../infrastructure/storage/entities.ts';
import { InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { generateRandomText, SECRET_LENGTH, sha256Hex } from '../callers/credentials.ts';
import type { FlowLimits } from '../../../flow/index.ts';
import { requireCompany } from '../companies/companies.ts';
import { activityOf, checkPublishable, publishVersion } from './publishing.ts';

export interface AppliedFlow {
  flow: Flow;
  created: boolean;
  newVersion: boolean;
  /** Only when this call generated the flow's first secret; shown once. */
  secret?: string;
  /** Publish warnings, when the apply also published. */
  warnings: string[];
}

/**
 * Saves the definition as the flow's next version (creating the flow and its
 * secret on first apply) and, with `publish`, publishes it. Run it in one
 * transaction: with `publish`, every publish check runs before anything is
 * written, and a failure later (a concurrent publish of the same activity)
 * rolls the whole apply back — a failed apply stores no version, no flow and
 * no secret. The caller announces the change after the commit.
 */
export async function applyFlow(
  em: EntityManager,
  definition: FlowJson,
  publish?: { limits: FlowLimits },
): Promise<AppliedFlow> {
  const companyName = definition.company?.trim() ?? '';
  const name = definition.name?.trim() ?? '';
  if (companyName === '') throw new InvalidArgumentError('company: required');
  if (name === '') throw new InvalidArgumentError('name: required');
  if (exceedsNameLimit('flow', name)) throw new InvalidArgumentError(`name: at most ${NAME_LIMITS.flow} characters`);
  const company = await requireCompany(em, companyName);
  let flow = await em.findOne(Flow, { company, name });
  const latest =
    flow && flow.latestVersion > 0 ? await em.findOne(FlowVersion, { flow, version: flow.latestVersion }) : null;
  const newVersion = !latest || canonical(latest.definition) !== canonical(definition);
  const versionNumber = (flow?.latestVersion ?? 0) + (newVersion ? 1 : 0);
  let warnings: string[] = [];
  if (publish)
    warnings = (
      await checkPublishable(
        em,
        { company, flowName: name, versionLabel: `v${versionNumber}`, definition },
        publish.limits,
      )
    ).warnings;

  const now = new Date();
  let secret: string | undefined;
  const created = !flow;
  if (!flow) {
    // A new flow gets its secret at once, so it can be published; the plaintext is returned once,
    // in the answer of the call that created it — which, past this point, can only fail by rolling back.
    secret = generateRandomText(SECRET_LENGTH);
    flow = em.create(Flow, {
      id: randomUUID(),
      company,
      name,
      secretHash: sha256Hex(secret),
      secretRotatedAt: now,
      latestVersion: 0,
      createdAt: now,
      updatedAt: now,
    });
  }
  if (newVersion) {
    flow.latestVersion = versionNumber;
    flow.updatedAt = now;
    em.create(FlowVersion, {
      id: randomUUID(),
      flow,
      version: versionNumber,
      activity: activityOf(definition),
      definition,
      createdAt: now,
    });
  }
  await em.flush();
  if (publish) await publishVersion(em, flow, versionNumber, publish.limits);
  return { flow, created, newVersion, secret, warnings };
}

export async function requireFlow(em: EntityManager, companyName: string, name: string): Promise<Flow> {
  const company = await requireCompany(em, companyName);
  const flow = await em.findOne(Flow, { company, name }, { populate: ['company'] });
  if (!flow) throw new NotFoundError(`Flow "${name}" does not exist in company "${companyName}"`);
  return flow;
}

export async function latestVersion(em: EntityManager, flow: Flow): Promise<FlowVersion> {
  const version = await em.findOne(FlowVersion, { flow, version: flow.latestVersion });
  if (!version) throw new NotFoundError(`Flow "${flow.name}" has no version`);
  return version;
}

/** A stored version by number; 0 is the latest. */
export async function flowVersion(em: EntityManager, flow: Flow, version: number): Promise<FlowVersion> {
  if (version === 0) return latestVersion(em, flow);
  if (!Number.isInteger(version) || version < 0)
    throw new InvalidArgumentError('version: 0 (the latest) or a version number');
  const found = await em.findOne(FlowVersion, { flow, version });
  if (!found)
    throw new NotFoundError(`Flow "${flow.name}" has no version ${version} (it has versions 1..${flow.latestVersion})`);
  return found;
}

/** Every stored version, newest first. */
export function listFlowVersions(em: EntityManager, flow: Flow): Promise<FlowVersion[]> {
  return em.find(FlowVersion, { flow }, { orderBy: { version: 'desc' } });
}

export async function listFlows(em: EntityManager, companyName: string): Promise<Flow[]> {
  const where = companyName ? { company: await requireCompany(em, companyName) } : {};
  return em.find(Flow, where, { populate: ['company'], orderBy: { company: { name: 'asc' }, name: 'asc' } });
}

export function publishedEntry(em: EntityManager, flow: Flow): Promise<PublishedFlow | null> {
  return em.findOne(PublishedFlow, { flow }, { populate: ['flowVersion'] });
}

/** Key-order-independent JSON, so re-applying an unchanged file writes no version. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
