// This engine's share of a cluster-wide limit. Every engine of a deployment
// knows how many engines are live (engine-membership.ts) and applies 1/N of
// each limit locally, so N engines together admit no more than the configured
// limit and no call waits for a database round trip. The price: the split is
// even, so an engine that gets more than its 1/N of a key's traffic (a
// skewed load balancer, sticky connections) refuses some calls while the
// cluster as a whole is under the limit.
import type { RateLimit } from './webhook-limits.ts';

/** Rate and burst divided by the live engines; at least one token of burst, so a call can pass at all. */
export function rateShare(limit: RateLimit, liveNodes: number): RateLimit {
  const nodes = liveNodeCount(liveNodes);
  return { perSecond: limit.perSecond / nodes, burst: Math.max(1, limit.burst / nodes) };
}

/** The sync-call cap divided by the live engines, rounded up (at least 1); 0 stays 0 (no cap). */
export function capShare(cap: number, liveNodes: number): number {
  if (cap <= 0) return 0;
  return Math.max(1, Math.ceil(cap / liveNodeCount(liveNodes)));
}

/** At least this engine itself, whatever a count says. */
export function liveNodeCount(liveNodes: number): number {
  return Number.isFinite(liveNodes) && liveNodes >= 1 ? Math.floor(liveNodes) : 1;
}
