// The audit table (engine/infrastructure/storage/audit-event.entity.ts): one insert per
// audited call, and the filtered, newest-first listing behind
// AuditService.ListAuditEvents.
import type { FilterQuery } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { InvalidArgumentError } from '../../errors.ts';
import { AuditEvent } from '../../infrastructure/storage/entities.ts';
import { escapeLikePattern } from '../../infrastructure/storage/like-pattern.ts';
import type { AuditEntry } from './audit-entry.ts';

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

export interface RecordedCall extends AuditEntry {
  at: Date;
  account: string;
  /** The person, for a call made in the console. */
  person?: string;
  /** `service/method`, e.g. `flowhook.engine.v1.FlowAdminService/PublishFlow`. */
  method: string;
  /** `ok` or the Connect code name the call ended with. */
  outcome: string;
}

export async function recordAuditEvent(orm: MikroORM, call: RecordedCall): Promise<void> {
  await orm.em.fork().insert(AuditEvent, {
    at: call.at,
    account: call.account,
    action: call.action,
    method: call.method,
    company: call.company ?? null,
    target: call.target ?? null,
    outcome: call.outcome,
    details: call.details,
    person: call.person ?? null,
  });
}

export interface AuditFilter {
  since?: Date;
  until?: Date;
  account?: string;
  company?: string;
  /** An action (`flow.publish`) or its kind (`flow`: every `flow.*`). */
  action?: string;
  /** The person behind a console change, exactly as recorded. */
  person?: string;
  /** Only events older than this id (the page before ended there). */
  beforeId?: string;
  /** 0 means DEFAULT_LIST_LIMIT. */
  limit?: number;
}

export interface AuditPage {
  events: AuditEvent[];
  /** More events match: the id the next page starts below. */
  more: boolean;
}

export async function listAuditEvents(orm: MikroORM, filter: AuditFilter): Promise<AuditPage> {
  const limit = filter.limit || DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT)
    throw new InvalidArgumentError(`limit must be 1..${MAX_LIST_LIMIT}`);
  if (filter.since && filter.until && filter.since > filter.until)
    throw new InvalidArgumentError('since must not be after until');
  const where: FilterQuery<AuditEvent>[] = [];
  if (filter.since) where.push({ at: { $gte: filter.since } });
  if (filter.until) where.push({ at: { $lt: filter.until } });
  if (filter.account) where.push({ account: filter.account });
  if (filter.company) where.push({ company: filter.company });
  if (filter.person) where.push({ person: filter.person });
  if (filter.action)
    where.push({ $or: [{ action: filter.action }, { action: { $like: `${escapeLikePattern(filter.action)}.%` } }] });
  if (filter.beforeId !== undefined) where.push({ id: { $lt: filter.beforeId } });
  // One more than asked tells whether another page follows, without a count over the whole table.
  const rows = await orm.em
    .fork()
    .find(AuditEvent, where.length > 0 ? { $and: where } : {}, { orderBy: { id: 'desc' }, limit: limit + 1 });
  return { events: rows.slice(0, limit), more: rows.length > limit };
}
