// The delivery log as operators read it: a filtered, newest-first listing with
// page tokens, and one delivery with its redacted headers and — where the
// execution's payload would be shown — its stored request. Reads are
// tenant-scoped like executions: a console person sees the deliveries of the
// companies where they hold the role (company-reach.ts); a delivery that names
// no company (a callback URL's, a refused call without one) needs the role in
// every company.
import type { FilterQuery } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { Delivery } from '../../infrastructure/storage/entities.ts';
import { EVERY_COMPANY } from '../callers/console-roles.ts';
import type { CompanyReach } from '../callers/company-reach.ts';

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

export interface DeliveryFilter {
  company?: string;
  outcome?: string;
  reason?: string;
  caller?: string;
  activity?: string;
  status?: number;
  route?: string;
  since?: Date;
  until?: Date;
}

/** A listed delivery: every column but the sealed request, and whether there is one. */
export type ListedDelivery = Pick<
  Delivery,
  | 'id'
  | 'receivedAt'
  | 'route'
  | 'company'
  | 'activity'
  | 'caller'
  | 'sender'
  | 'outcome'
  | 'reason'
  | 'status'
  | 'answer'
  | 'latencyMs'
  | 'requestId'
  | 'executionId'
  | 'headers'
  | 'count'
> & { hasBody: boolean };

export interface DeliveryPage {
  deliveries: ListedDelivery[];
  nextPageToken: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function filterClauses(filter: DeliveryFilter): FilterQuery<Delivery>[] {
  if (filter.since && filter.until && filter.since > filter.until)
    throw new InvalidArgumentError('since must not be after until');
  const where: FilterQuery<Delivery>[] = [];
  if (filter.company) where.push({ company: filter.company });
  if (filter.outcome) where.push({ outcome: filter.outcome });
  if (filter.reason) where.push({ reason: filter.reason });
  if (filter.caller) where.push({ caller: filter.caller });
  if (filter.activity) where.push({ activity: filter.activity.toLowerCase() });
  if (filter.status) where.push({ status: filter.status });
  if (filter.route) where.push({ route: filter.route });
  if (filter.since) where.push({ receivedAt: { $gte: filter.since } });
  if (filter.until) where.push({ receivedAt: { $lt: filter.until } });
  return where;
}

export async function listDeliveries(
  orm: MikroORM,
  reach: CompanyReach,
  request: { filter: DeliveryFilter; limit: number; pageToken: string },
): Promise<DeliveryPage> {
  const limit = request.limit || DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT)
    throw new InvalidArgumentError(`limit must be 1..${MAX_LIST_LIMIT}`);
  // Without a company the listing spans every company: only for who reaches them all (the console asks with one).
  if (!reach(request.filter.company || EVERY_COMPANY)) throw new NotFoundError('no deliveries you may read');
  const where = filterClauses(request.filter);
  if (request.pageToken) {
    const after = readPageToken(request.pageToken);
    where.push({ $or: [{ receivedAt: { $lt: after.at } }, { receivedAt: after.at, id: { $lt: after.id } }] });
  }
  // One more than asked tells whether another page follows, without a count over the whole table.
  const em = orm.em.fork();
  const rows = await em.find(Delivery, where.length > 0 ? { $and: where } : {}, {
    orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
    limit: limit + 1,
    // The sealed request is never listed: only whether there is one (below).
    exclude: ['body'],
  });
  const page = rows.slice(0, limit);
  const withBody = new Set(
    page.length === 0
      ? []
      : (
          await em.find(Delivery, { id: { $in: page.map((row) => row.id) }, body: { $ne: null } }, { fields: ['id'] })
        ).map((row) => row.id),
  );
  const last = page.at(-1);
  return {
    deliveries: page.map((row): ListedDelivery => ({ ...row, count: row.count, hasBody: withBody.has(row.id) })),
    nextPageToken: rows.length > limit && last ? pageToken(last) : '',
  };
}

/** One delivery the caller may read, or NOT_FOUND (another company's reads as unknown). */
export async function findDelivery(orm: MikroORM, reach: CompanyReach, id: string): Promise<Delivery> {
  if (!UUID.test(id)) throw new NotFoundError(`No delivery "${id.slice(0, 100)}"`);
  const found = await orm.em.fork().findOne(Delivery, { id });
  if (!found || !reach(found.company ?? EVERY_COMPANY)) throw new NotFoundError(`No delivery "${id}"`);
  return found;
}

function pageToken(row: Pick<Delivery, 'receivedAt' | 'id'>): string {
  return Buffer.from(`${row.receivedAt.toISOString()}|${row.id}`, 'utf8').toString('base64url');
}

function readPageToken(token: string): { at: Date; id: string } {
  const [iso = '', id = ''] = Buffer.from(token, 'base64url').toString('utf8').split('|');
  const at = new Date(iso);
  if (Number.isNaN(at.getTime()) || !UUID.test(id))
    throw new InvalidArgumentError('page_token: not a page token this listing gave');
  return { at, id };
}
