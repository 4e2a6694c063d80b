// The engine's admission control for webhook calls (issue 5): a rate per
// caller, a rate per (company, activity), and a cap on sync calls waiting at
// once. Each engine process keeps its own counters; with N engines the
// effective limits are N times these. A refused call starts nothing and gets
// a RateLimitedError, which the facade answers with 429 and Retry-After.
import { RateLimitedError } from '../errors.ts';
import { KeyedRateLimiter, type TakeResult } from './token-bucket.ts';

export interface RateLimit {
  /** Calls per second on average; 0 turns the limit off. */
  perSecond: number;
  burst: number;
}

export interface WebhookLimitSettings {
  perCaller: RateLimit;
  perActivity: RateLimit;
  /**
   * The provider route per (company, activity), counted before the signature is checked: the one
   * limit unauthenticated callers can reach, so a flood of unsigned requests to a route is cut
   * off before it costs verification work. Absent: off.
   */
  perHookRoute?: RateLimit;
  /** Sync (Wait for Response step) calls waiting at once; 0 turns the cap off. */
  maxConcurrentSyncCalls: number;
}

export interface WebhookLimits {
  /** Before anything is looked up for an authenticated caller. */
  admitCaller(callerLabel: string): void;
  /** After the secret and permission checks, so calls that fail them do not use up a flow's budget. */
  admitActivity(company: string, activity: string): void;
  /** Provider route: before its flow's secret and signature are looked at (activity lower-cased). */
  admitHookRoute(company: string, activity: string): void;
  /** Holds one of the sync slots until `release` is called. */
  acquireSyncSlot(): () => void;
}

export function createWebhookLimits(settings: WebhookLimitSettings, now: () => number = Date.now): WebhookLimits {
  const perCaller = settings.perCaller.perSecond > 0 ? new KeyedRateLimiter(settings.perCaller.perSecond, settings.perCaller.burst) : undefined;
  const perActivity = settings.perActivity.perSecond > 0 ? new KeyedRateLimiter(settings.perActivity.perSecond, settings.perActivity.burst) : undefined;
  const perHookRoute = settings.perHookRoute && settings.perHookRoute.perSecond > 0 ? new KeyedRateLimiter(settings.perHookRoute.perSecond, settings.perHookRoute.burst) : undefined;
  let syncCallsInFlight = 0;

  return {
    admitCaller(callerLabel) {
      refuseUnless(perCaller?.take(callerLabel, now()), `Too many calls from caller "${callerLabel}"`);
    },
    admitActivity(company, activity) {
      refuseUnless(perActivity?.take(`${company}\u0000${activity}`, now()), `Too many calls for activity "${activity}" in company "${company}"`);
    },
    admitHookRoute(company, activity) {
      refuseUnless(perHookRoute?.take(`${company}\u0000${activity}`, now()), `Too many requests to the provider route of activity "${activity}" in company "${company}"`);
    },
    acquireSyncSlot() {
      const cap = settings.maxConcurrentSyncCalls;
      if (cap > 0 && syncCallsInFlight >= cap) {
        throw new RateLimitedError(`Too many calls are waiting for a flow's response (at most ${cap} at once)`, 1);
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

function refuseUnless(result: TakeResult | undefined, message: string): void {
  if (result && !result.allowed) throw new RateLimitedError(`${message}; retry after ${result.retryAfterSeconds} s`, result.retryAfterSeconds);
}
