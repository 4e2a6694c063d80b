// A token bucket: `ratePerSecond` calls on average, bursts of up to `burst`.
// Pure apart from the clock it is handed, so tests can drive time.
import { DigestKeyedLru } from '../cache/digest-keyed-lru.ts';

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

  #refill(nowMs: number): void {
    const elapsedSeconds = Math.max(0, nowMs - this.#updatedAt) / 1000;
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsedSeconds * this.#ratePerSecond);
    // Never backwards: a clock that steps back must not refill the same time twice.
    this.#updatedAt = Math.max(this.#updatedAt, nowMs);
  }
}

const ALLOWED: TakeResult = Object.freeze({ allowed: true });

/**
 * Most keys a limiter remembers. A key is a caller, a flow, a sender's address: text an outsider
 * can vary at will, so the map is bounded (about 200 bytes a key, whatever the key's length:
 * 2 MB at the bound). At the bound the least recently used key is forgotten; it starts again with a
 * full bucket, so a flood of new keys can at most hand an idle key back its burst.
 */
export const MAX_LIMITER_KEYS = 10_000;

/** One bucket per key (a caller, an activity), created on first use; keys held as fixed-size digests (digest-keyed-lru.ts). */
export class KeyedRateLimiter {
  readonly #buckets: DigestKeyedLru<TokenBucket>;
  #ratePerSecond: number;
  #burst: number;

  constructor(ratePerSecond: number, burst: number, maxKeys = MAX_LIMITER_KEYS) {
    this.#ratePerSecond = ratePerSecond;
    this.#burst = burst;
    this.#buckets = new DigestKeyedLru(maxKeys);
  }

  take(key: string, nowMs: number): TakeResult {
    return this.bucket(key, nowMs).take(nowMs);
  }

  /** The key's bucket, made (full) on first use: for callers that peek at several before taking from any. */
  bucket(key: string, nowMs: number): TokenBucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
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
}
