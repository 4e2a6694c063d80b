// A token bucket: `ratePerSecond` calls on average, bursts of up to `burst`.
// Pure apart from the clock it is handed, so tests can drive time.

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class TokenBucket {
  #ratePerSecond: number;
  #burst: number;
  #tokens: number;
  #updatedAt: number;

  constructor(ratePerSecond: number, burst: number, nowMs: number) {
    this.#ratePerSecond = ratePerSecond;
    this.#burst = Math.max(1, burst);
    this.#tokens = this.#burst;
    this.#updatedAt = nowMs;
  }

  take(nowMs: number): TakeResult {
    const result = this.peek(nowMs);
    if (result.allowed) this.#tokens -= 1;
    return result;
  }

  /** Takes the token a `peek` that allowed just found (no refill: the caller peeked at this instant). */
  consume(): void {
    this.#tokens -= 1;
  }

  /** What `take` would answer now, without taking anything. */
  peek(nowMs: number): TakeResult {
    this.#refill(nowMs);
    if (this.#tokens >= 1) return ALLOWED;
    // Whole seconds, as Retry-After carries them; never 0, which would invite an immediate retry.
    const waitSeconds = (1 - this.#tokens) / this.#ratePerSecond;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)) };
  }

  /**
   * A new rate and burst from now on (this engine's share of a cluster-wide limit changed): the
   * time until now refills at the old rate, and the tokens kept are capped by the new burst but
   * never topped up — a bucket that grows gets no burst it has not earned.
   */
  adopt(ratePerSecond: number, burst: number, nowMs: number): void {
    this.#refill(nowMs);
    this.#ratePerSecond = ratePerSecond;
    this.#burst = Math.max(1, burst);
    this.#tokens = Math.min(this.#tokens, this.#burst);
  }

  /** True when the bucket is back to full: it can be forgotten without changing any answer. */
  isFull(nowMs: number): boolean {
    this.#refill(nowMs);
    return this.#tokens >= this.#burst;
  }

  #refill(nowMs: number): void {
    const elapsedSeconds = Math.max(0, nowMs - this.#updatedAt) / 1000;
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsedSeconds * this.#ratePerSecond);
    // Never backwards: a clock that steps back must not refill the same time twice.
    this.#updatedAt = Math.max(this.#updatedAt, nowMs);
  }
}

const ALLOWED: TakeResult = Object.freeze({ allowed: true });

/** One bucket per key (a caller, an activity), created on first use. */
export class KeyedRateLimiter {
  readonly #buckets = new Map<string, TokenBucket>();
  #ratePerSecond: number;
  #burst: number;
  readonly #maxKeys: number;

  constructor(ratePerSecond: number, burst: number, maxKeys = 100_000) {
    this.#ratePerSecond = ratePerSecond;
    this.#burst = burst;
    this.#maxKeys = maxKeys;
  }

  take(key: string, nowMs: number): TakeResult {
    return this.bucket(key, nowMs).take(nowMs);
  }

  /** The key's bucket, made (full) on first use: for callers that peek at several before taking from any. */
  bucket(key: string, nowMs: number): TokenBucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      if (this.#buckets.size >= this.#maxKeys) this.#forgetFull(nowMs);
      bucket = new TokenBucket(this.#ratePerSecond, this.#burst, nowMs);
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }

  /** Every bucket, and every bucket made from now on, takes this rate and burst (TokenBucket.adopt). */
  adopt(ratePerSecond: number, burst: number, nowMs: number): void {
    if (ratePerSecond === this.#ratePerSecond && burst === this.#burst) return;
    this.#ratePerSecond = ratePerSecond;
    this.#burst = burst;
    for (const bucket of this.#buckets.values()) bucket.adopt(ratePerSecond, burst, nowMs);
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
