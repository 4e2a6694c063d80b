// The engine's rate limiters: a token bucket (`ratePerSecond` calls on average, bursts of up to
// `burst`, by the arithmetic of common/token-bucket.ts) and one bucket per key, bounded. Pure apart
// from the clock they are handed, so tests can drive time.
import { refill, type Bucket } from '../../../common/token-bucket.ts';
import { keyDigest } from '../../infrastructure/cache/digest-keyed-lru.ts';

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class TokenBucket {
  #ratePerSecond: number;
  #burst: number;
  #bucket: Bucket;

  constructor(ratePerSecond: number, burst: number, nowMs: number) {
    this.#ratePerSecond = ratePerSecond;
    this.#burst = Math.max(1, burst);
    this.#bucket = { tokens: this.#burst, countedAt: nowMs };
  }

  take(nowMs: number): TakeResult {
    const result = this.peek(nowMs);
    if (result.allowed) this.#bucket.tokens -= 1;
    return result;
  }

  /** Takes the token a `peek` that allowed just found (no refill: the caller peeked at this instant). */
  consume(): void {
    this.#bucket.tokens -= 1;
  }

  /** What `take` would answer now, without taking anything. */
  peek(nowMs: number): TakeResult {
    this.#refill(nowMs);
    if (this.#bucket.tokens >= 1) return ALLOWED;
    // Whole seconds, as Retry-After carries them; never 0, which would invite an immediate retry.
    const waitSeconds = (1 - this.#bucket.tokens) / this.#ratePerSecond;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)) };
  }

  /** Whether the bucket holds its whole burst again: forgetting it then changes nothing. */
  isFull(nowMs: number): boolean {
    this.#refill(nowMs);
    return this.#bucket.tokens >= this.#burst;
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
    this.#bucket.tokens = Math.min(this.#bucket.tokens, this.#burst);
  }

  #refill(nowMs: number): void {
    // Never backwards: a clock that steps back must not refill the same time twice.
    this.#bucket = refill(this.#bucket, Math.max(this.#bucket.countedAt, nowMs), this.#ratePerSecond, this.#burst);
  }
}

const ALLOWED: TakeResult = Object.freeze({ allowed: true });

/**
 * Most keys a limiter remembers. A key is a caller, a flow, a sender's address: text an outsider
 * can vary at will, so the map is bounded (about 200 bytes a key, whatever the key's length:
 * 2 MB at the bound).
 */
export const MAX_LIMITER_KEYS = 10_000;

/** How many of the least recently used buckets a new key looks at for one that is full again. */
const ROOM_SEARCH = 16;

/**
 * One bucket per key (a caller, an activity), created full on first use; keys held as fixed-size
 * digests (digest-keyed-lru.ts). At the bound a bucket is forgotten only once it is full again —
 * when forgetting it changes nothing — so a flood of made-up keys cannot hand a drained key its
 * burst back. While every bucket near the least recently used end still counts, new keys share
 * one overflow bucket of the same rate and burst: the flood is limited as one key, and no bucket
 * that still holds something back is dropped.
 */
export class KeyedRateLimiter {
  /** Digest → bucket, least recently used first (a Map iterates in insertion order). */
  readonly #buckets = new Map<string, TokenBucket>();
  readonly #maxKeys: number;
  #overflow: TokenBucket | undefined;
  #ratePerSecond: number;
  #burst: number;

  constructor(ratePerSecond: number, burst: number, maxKeys = MAX_LIMITER_KEYS) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1)
      throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
    this.#ratePerSecond = ratePerSecond;
    this.#burst = burst;
    this.#maxKeys = maxKeys;
  }

  take(key: string, nowMs: number): TakeResult {
    return this.bucket(key, nowMs).take(nowMs);
  }

  /** The key's bucket, made (full) on first use: for callers that peek at several before taking from any. */
  bucket(key: string, nowMs: number): TokenBucket {
    const digest = keyDigest(key);
    const known = this.#buckets.get(digest);
    if (known) {
      this.#buckets.delete(digest);
      this.#buckets.set(digest, known);
      return known;
    }
    if (this.#buckets.size >= this.#maxKeys && !this.#forgetAFullBucket(nowMs)) {
      this.#overflow ??= new TokenBucket(this.#ratePerSecond, this.#burst, nowMs);
      return this.#overflow;
    }
    const bucket = new TokenBucket(this.#ratePerSecond, this.#burst, nowMs);
    this.#buckets.set(digest, bucket);
    return bucket;
  }

  /** Every bucket, and every bucket made from now on, takes this rate and burst (TokenBucket.adopt). */
  adopt(ratePerSecond: number, burst: number, nowMs: number): void {
    if (ratePerSecond === this.#ratePerSecond && burst === this.#burst) return;
    this.#ratePerSecond = ratePerSecond;
    this.#burst = burst;
    for (const bucket of this.#buckets.values()) bucket.adopt(ratePerSecond, burst, nowMs);
    this.#overflow?.adopt(ratePerSecond, burst, nowMs);
  }

  get size(): number {
    return this.#buckets.size;
  }

  /** Drops one bucket that is full at `nowMs`, from the least recently used end; false when none of the first few is. */
  #forgetAFullBucket(nowMs: number): boolean {
    let looked = 0;
    for (const [digest, bucket] of this.#buckets) {
      if (bucket.isFull(nowMs)) {
        this.#buckets.delete(digest);
        return true;
      }
      if (++looked >= ROOM_SEARCH) return false;
    }
    return false;
  }
}
