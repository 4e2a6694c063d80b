// A token bucket: `ratePerSecond` calls on average, bursts of up to `burst`.
// Pure apart from the clock it is handed, so tests can drive time.

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class TokenBucket {
  readonly #ratePerSecond: number;
  readonly #burst: number;
  #tokens: number;
  #updatedAt: number;

  constructor(ratePerSecond: number, burst: number, nowMs: number) {
    this.#ratePerSecond = ratePerSecond;
    this.#burst = Math.max(1, burst);
    this.#tokens = this.#burst;
    this.#updatedAt = nowMs;
  }

  take(nowMs: number): TakeResult {
    this.#refill(nowMs);
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return { allowed: true };
    }
    // Whole seconds, as Retry-After carries them; never 0, which would invite an immediate retry.
    const waitSeconds = (1 - this.#tokens) / this.#ratePerSecond;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)) };
  }

  /** True when the bucket is back to full: it can be forgotten without changing any answer. */
  isFull(nowMs: number): boolean {
    this.#refill(nowMs);
    return this.#tokens >= this.#burst;
  }

  #refill(nowMs: number): void {
    const elapsedSeconds = Math.max(0, nowMs - this.#updatedAt) / 1000;
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsedSeconds * this.#ratePerSecond);
    this.#updatedAt = nowMs;
  }
}

/** One bucket per key (a caller, an activity), created on first use. */
export class KeyedRateLimiter {
  readonly #buckets = new Map<string, TokenBucket>();
  readonly #ratePerSecond: number;
  readonly #burst: number;
  readonly #maxKeys: number;

  constructor(ratePerSecond: number, burst: number, maxKeys = 100_000) {
    this.#ratePerSecond = ratePerSecond;
    this.#burst = burst;
    this.#maxKeys = maxKeys;
  }

  take(key: string, nowMs: number): TakeResult {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      if (this.#buckets.size >= this.#maxKeys) this.#forgetFull(nowMs);
      bucket = new TokenBucket(this.#ratePerSecond, this.#burst, nowMs);
      this.#buckets.set(key, bucket);
    }
    return bucket.take(nowMs);
  }

  get size(): number {
    return this.#buckets.size;
  }

  /** Full buckets hold no state worth keeping; dropping them keeps memory bounded by active keys. */
  #forgetFull(nowMs: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.isFull(nowMs)) this.#buckets.delete(key);
    }
  }
}
