// Bulk replay: every accepted delivery of one company that a filter matches and
// that can run again (the endpoint's and the provider route's), replayed one
// after the other at the engine's re-run pace (reruns/rerun-pacer.ts), oldest
// first. As bulk re-run (reruns/bulk-rerun.ts): the matches are read before the
// first start, a dry run counts and lists them and starts nothing, more matches
// than the maximum refuse the whole request, and a delivery the caller may not
// replay as asked is skipped with the reason.
import type { FilterQuery } from '@mikro-orm/core';
import { EngineError, FailedPreconditionError, InvalidArgumentError, UnavailableError } from '../../errors.ts';
import { Delivery } from '../../infrastructure/storage/entities.ts';
import type { RerunPacer } from '../reruns/rerun-pacer.ts';
import { filterClauses, type DeliveryFilter } from './delivery-reads.ts';
import { replayFound, type ReplayCaller, type ReplayDeps, type ReplayResult } from './replay-delivery.ts';

export const DEFAULT_BULK_MAX = 100;
export const BULK_MAX = 1000;

export interface BulkReplayResult {
  matched: number;
  deliveries: Delivery[];
  started: ReplayResult[];
  skipped: { deliveryId: string; reason: string }[];
}

export async function replayMatching(
  deps: ReplayDeps & { pacer: RerunPacer },
  caller: ReplayCaller,
  request: { filter: DeliveryFilter; dryRun: boolean; maxCount: number; reveal: boolean },
  signal: AbortSignal,
): Promise<BulkReplayResult> {
  const max = request.maxCount === 0 ? DEFAULT_BULK_MAX : request.maxCount;
  if (max < 1 || max > BULK_MAX) throw new InvalidArgumentError(`max count: 1..${BULK_MAX}`);
  const company = request.filter.company;
  if (!company) throw new InvalidArgumentError('company is required: deliveries are replayed within one company');
  if (!caller.reach(company)) throw new InvalidArgumentError(`no deliveries of company "${company}" you may replay`);
  if (request.filter.outcome && request.filter.outcome !== 'accepted')
    throw new InvalidArgumentError('only accepted deliveries can be replayed (outcome accepted, or leave it out)');
  const where: FilterQuery<Delivery> = {
    $and: [...filterClauses({ ...request.filter, outcome: 'accepted' }), { route: { $in: ['endpoint', 'provider'] } }],
  };
  const em = deps.orm.em.fork();
  // One more than allowed tells "too many" without reading them all.
  const found = await em.find(Delivery, where, { orderBy: [{ receivedAt: 'asc' }, { id: 'asc' }], limit: max + 1 });
  const matched = found.length > max ? await em.count(Delivery, where) : found.length;
  if (request.dryRun) return { matched, deliveries: found.slice(0, max), started: [], skipped: [] };
  if (found.length > max)
    throw new FailedPreconditionError(
      `${matched} deliveries match, more than the ${max} allowed at once: narrow the filter (--since/--until) or raise --max (at most ${BULK_MAX})`,
    );

  const started: ReplayResult[] = [];
  const skipped: BulkReplayResult['skipped'] = [];
  for (const [index, delivery] of found.entries()) {
    try {
      await deps.pacer.turn(signal);
    } catch {
      // The caller went away: what started is started (and logged); nothing more starts.
      break;
    }
    try {
      started.push(await replayFound(deps, caller, delivery, request.reveal));
    } catch (error) {
      // A domain refusal skips one; Temporal or PostgreSQL going away stops the rest.
      if (!(error instanceof EngineError) || error instanceof UnavailableError) {
        const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
        for (const rest of found.slice(index)) skipped.push({ deliveryId: rest.id, reason: `not started: ${reason}` });
        break;
      }
      skipped.push({ deliveryId: delivery.id, reason: error.message });
    }
  }
  deps.logger.info(
    { serviceAccount: caller.account.name, company, matched, started: started.length, skipped: skipped.length },
    'bulk replay finished',
  );
  return { matched, deliveries: found, started, skipped };
}
