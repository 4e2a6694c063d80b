// Flows as code: applying a flow file saves a new immutable draft version
// (drafts may be invalid; only publishing validates).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { Flow, FlowVersion, PublishedFlow } from '../storage/entities.ts';
import { InvalidArgumentError, NotFoundError } from '../errors.ts';
import { generateRandomText, SECRET_LENGTH, sha256Hex } from '../security/credentials.ts';
import { requireCompany } from './companies.ts';

export interface AppliedFlow {
  flow: Flow;
  created: boolean;
  newVersion: boolean;
  /** Only when this call generated the flow's first secret; shown once. */
  secret?: string;
}

export async function applyFlow(em: EntityManager, definition: FlowJson): Promise<AppliedFlow> {
  const companyName = definition.company?.trim() ?? '';
  const name = definition.name?.trim() ?? '';
  if (companyName === '') throw new InvalidArgumentError('company: required');
  if (name === '') throw new InvalidArgumentError('name: required');
  if (name.length > 250) throw new InvalidArgumentError('name: at most 250 characters');
  const company = await requireCompany(em, companyName);
  const now = new Date();
  let flow = await em.findOne(Flow, { company, name });
  let secret: string | undefined;
  const created = !flow;
  if (!flow) {
    // A new flow gets its secret at once, so it can be published; the plaintext is returned once.
    secret = generateRandomText(SECRET_LENGTH);
    flow = em.create(Flow, { id: randomUUID(), company, name, secretHash: sha256Hex(secret), secretRotatedAt: now, latestVersion: 0, createdAt: now, updatedAt: now });
  }
  const latest = flow.latestVersion > 0 ? await em.findOne(FlowVersion, { flow, version: flow.latestVersion }) : null;
  const newVersion = !latest || canonical(latest.definition) !== canonical(definition);
  if (newVersion) {
    flow.latestVersion += 1;
    flow.updatedAt = now;
    em.create(FlowVersion, {
      id: randomUUID(),
      flow,
      version: flow.latestVersion,
      activity: (definition.trigger?.webhook?.activity ?? '').trim().toLowerCase(),
      definition,
      createdAt: now,
    });
  }
  await em.flush();
  return { flow, created, newVersion, secret };
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
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
