// The engine's admission control for webhook calls (issue 5): a rate per
// caller, per (company, activity), per company and for all calls together,
// and a cap on sync calls waiting at once. The limits are cluster-wide: each
// engine applies its share of them (cluster-share.ts), 1/N with N live engines
// (engine-membership.ts), in memory — no call waits for the database. A
// refused call starts nothing and gets a RateLimitedError, which the facade
// answers with 429 and Retry-After.
import { RateLimitedError } from '../../errors.ts';
import { capShare, liveNodeCount, rateShare } from './cluster-share.ts';
import { KeyedRateLimiter, type TakeResult } from './rate-limiters.ts';

export interface RateLimit {
  /** Calls per second on average; 0 turns the limit off. */
  perSecond: number;
  burst: number;
}

export interface WebhookLimitSettings {
  perCaller: RateLimit;
  perActivity: RateLimit;
  /** All calls to one company's flows (FLOWHOOK_RATE_LIMIT_PER_COMPANY). Absent: off. */
  perCompany?: RateLimit;
  /** All calls to every flow (FLOWHOOK_RATE_LIMIT_GLOBAL). Absent: off. */
  global?: RateLimit;
  /**
   * The provider route per (company, activity), counted before the signature is checked: the one
   * limit unauthenticated callers can reach, so a flood of unsigned requests to a route is cut
   * off before it costs verification work. Absent: off.
   */
  perHookRoute?: RateLimit;
  /**
   * Callback URL deliveries with an unknown token, per sender (FLOWHOOK_RATE_LIMIT_CALLBACKS): a
   * door anyone can knock on, so a sender past its budget of guesses is refused before its next
   * token costs a database lookup — and only that sender: real callbacks from others, and the
   * known tokens of any sender, are never counted. Absent: off.
   */
  callbacks?: RateLimit;
  /** Sync (Wait for Response step) calls waiting at once; 0 turns the cap off. */
  maxConcurrentSyncCalls: number;
}

/**
 * Which limit refused a call: the `limit` label of flowhook_engine_rate_limited_total.
 * `flow_control_backlog` is flow control's cap on executions waiting at one gate (engine/domain/flow-control/gate-backlogs.ts).
 */
export type LimitName =
  'caller' | 'activity' | 'company' | 'global' | 'hook_route' | 'callbacks' | 'sync_calls' | 'flow_control_backlog';

/** A refusal by admission control, naming the limit that refused. */
export class LimitRefusedError extends RateLimitedError {
  readonly limit: LimitName;

  constructor(limit: LimitName, message: string, retryAfterSeconds: number) {
    super(message, retryAfterSeconds);
    this.limit = limit;
  }
}

export interface WebhookLimits {
  /** Before anything is looked up for an authenticated caller. */
  admitCaller(callerLabel: string): void;
  /**
   * After the secret and permission checks, so calls that fail them do not use up a flow's budget:
   * the (company, activity), company and global limits, all or nothing (a call one of them refuses
   * takes no token from the others).
   */
  admitActivity(company: string, activity: string): void;
  /** Provider route: before its flow's secret and signature are looked at (activity lower-cased). */
  admitHookRoute(company: string, activity: string): void;
  /** Callback URL route: a well-formed token, before it is looked up; refused while its sender is past its budget of unknown tokens. */
  admitCallback(sender: string): void;
  /** Callback URL route: the sender's token was unknown; counted against its budget. */
  chargeCallbackMiss(sender: string): void;
  /** Holds one of the sync slots until `release` is called. */
  acquireSyncSlot(): () => void;
}

export interface ClusterWebhookLimits extends WebhookLimits {
  /** How many engines share the limits now (this one included); each applies 1/N of every limit. */
  setLiveNodes(liveNodes: number): void;
  readonly liveNodes: number;
}

export function createWebhookLimits(
  settings: WebhookLimitSettings,
  now: () => number = Date.now,
  initialLiveNodes = 1,
): ClusterWebhookLimits {
  let liveNodes = liveNodeCount(initialLiveNodes);
  const limiter = (limit: RateLimit | undefined) => {
    if (!limit || limit.perSecond <= 0) return undefined;
    const share = rateShare(limit, liveNodes);
    return { limit, limiter: new KeyedRateLimiter(share.perSecond, share.burst) };
  };
  const perCaller = limiter(settings.perCaller);
  const perActivity = limiter(settings.perActivity);
  const perCompany = limiter(settings.perCompany);
  const global = limiter(settings.global);
  const perHookRoute = limiter(settings.perHookRoute);
  const callbacks = limiter(settings.callbacks);
  const all = [perCaller, perActivity, perCompany, global, perHookRoute, callbacks];
  const cap = settings.maxConcurrentSyncCalls;
  let localCap = capShare(cap, liveNodes);
  let syncCallsInFlight = 0;

  return {
    get liveNodes() {
      return liveNodes;
    },
    setLiveNodes(count) {
      const next = liveNodeCount(count);
      if (next === liveNodes) return;
      liveNodes = next;
      const at = now();
      for (const entry of all) {
        if (!entry) continue;
        const share = rateShare(entry.limit, liveNodes);
        entry.limiter.adopt(share.perSecond, share.burst, at);
      }
      localCap = capShare(cap, liveNodes);
    },
    admitCaller(callerLabel) {
      if (!perCaller) return;
      const result = perCaller.limiter.take(callerLabel, now());
      if (!result.allowed)
        refuse(
          'caller',
          `Too many calls from caller "${callerLabel}" (FLOWHOOK_RATE_LIMIT_PER_CALLER)`,
          result.retryAfterSeconds,
        );
    },
    admitActivity(company, activity) {
      if (!perActivity && !perCompany && !global) return;
      const at = now();
      const activityBucket = perActivity?.limiter.bucket(`${company}\u0000${activity}`, at);
      const companyBucket = perCompany?.limiter.bucket(company, at);
      const globalBucket = global?.limiter.bucket('', at);
      const byActivity = activityBucket?.peek(at);
      const byCompany = companyBucket?.peek(at);
      const byGlobal = globalBucket?.peek(at);
      if (refused(byActivity) || refused(byCompany) || refused(byGlobal)) {
        // Named by the narrowest limit that refused; the wait is the longest, as a retry any sooner would be refused again.
        const wait = Math.max(retryAfter(byActivity), retryAfter(byCompany), retryAfter(byGlobal));
        if (refused(byActivity))
          refuse(
            'activity',
            `Too many calls for activity "${activity}" in company "${company}" (FLOWHOOK_RATE_LIMIT_PER_ACTIVITY)`,
            wait,
          );
        if (refused(byCompany))
          refuse('company', `Too many calls for company "${company}" (FLOWHOOK_RATE_LIMIT_PER_COMPANY)`, wait);
        refuse('global', 'Too many calls for all companies together (FLOWHOOK_RATE_LIMIT_GLOBAL)', wait);
      }
      // Every one allowed at this instant: take without refilling again.
      activityBucket?.consume();
      companyBucket?.consume();
      globalBucket?.consume();
    },
    admitHookRoute(company, activity) {
      if (!perHookRoute) return;
      const result = perHookRoute.limiter.take(`${company}\u0000${activity}`, now());
      if (!result.allowed)
        refuse(
          'hook_route',
          `Too many requests to the provider route of activity "${activity}" in company "${company}" (FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE)`,
          result.retryAfterSeconds,
        );
    },
    admitCallback(sender) {
      if (!callbacks) return;
      const result = callbacks.limiter.bucket(sender, now()).peek(now());
      if (!result.allowed)
        refuse(
          'callbacks',
          'Too many callback deliveries with unknown tokens from this sender (FLOWHOOK_RATE_LIMIT_CALLBACKS)',
          result.retryAfterSeconds,
        );
    },
    chargeCallbackMiss(sender) {
      callbacks?.limiter.take(sender, now());
    },
    acquireSyncSlot() {
      if (cap > 0 && syncCallsInFlight >= localCap) {
        const share = liveNodes > 1 ? `, ${localCap} on this engine of ${liveNodes}` : '';
        throw new LimitRefusedError(
          'sync_calls',
          `Too many calls are waiting for a flow's response (at most ${cap} at once${share}; FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS)`,
          1,
        );
      }
      syncCallsInFlight++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        syncCallsInFlight--;
      };
    },
  };
}

function refused(result: TakeResult | undefined): boolean {
  return result !== undefined && !result.allowed;
}

function retryAfter(result: TakeResult | undefined): number {
  return result && !result.allowed ? result.retryAfterSeconds : 0;
}

function refuse(limit: LimitName, message: string, retryAfterSeconds: number): never {
  throw new LimitRefusedError(limit, `${message}; retry after ${retryAfterSeconds} s`, retryAfterSeconds);
}
