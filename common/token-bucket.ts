// Token-bucket arithmetic, the one both rate limits share: the engine's limits on calls
// (engine/domain/limits/rate-limiters.ts, on the engine's clock) and flow control's throttle
// (workflows/flow-control/throttle-workflow.ts, on workflow time, where an execution starts with
// one token). Pure and sandbox-safe. A bucket holds up to `burst` tokens, refilled at `perSecond`;
// times are milliseconds.

export interface Bucket {
  tokens: number;
  countedAt: number;
}

/** The bucket at `now`: refilled for the time since it was counted, never above burst. */
export function refill(bucket: Bucket, now: number, perSecond: number, burst: number): Bucket {
  const elapsed = Math.max(0, now - bucket.countedAt);
  return { tokens: Math.min(burst, bucket.tokens + (elapsed * perSecond) / 1000), countedAt: now };
}

/** How long until the bucket holds one whole token (0 when it does). */
export function msUntilToken(bucket: Bucket, perSecond: number): number {
  if (bucket.tokens >= 1) return 0;
  return Math.ceil(((1 - bucket.tokens) * 1000) / perSecond);
}
