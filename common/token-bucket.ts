// The throttle's arithmetic, pure so it can be tested alone: a bucket of
// `burst` tokens refilled at `perSecond`; an execution starts with one token.
// Times are workflow time in milliseconds.

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
