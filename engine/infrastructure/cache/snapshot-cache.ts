// A small cache of plain snapshots for the webhook hot path, cleared by the
// change feed and bounded in size. It only serves while the feed is live, and
// no entry is served longer than a maximum age even then: should a change ever
// go unheard while the feed looks live (a notification that was never sent
// after its commit, say), the stale entry still dies within that bound.
// Keys are names callers send (a company and activity, a user name), so they
// are held as fixed-size digests, and at the bound the least recently used
// entry makes room (digest-keyed-lru.ts): a flood of made-up names costs at
// most `maxEntries` small entries, and pushes out only what was idle longest.
import { defaultOf } from '../../../common/configuration/configuration-table.ts';
import type { ChangeFeed, ChangeTopic } from './change-feed.ts';
import { DigestKeyedLru } from './digest-keyed-lru.ts';

export const DEFAULT_CACHE_MAX_AGE_MS = defaultOf('FLOWHOOK_CACHE_MAX_AGE_MS');

export interface SnapshotCacheOptions {
  /** At most this many entries (default 10,000); the least recently used one makes room for a new one. */
  maxEntries?: number;
  /** An entry is reloaded once this old, counted from when its load began. */
  maxAgeMs?: number;
  /** The clock, in milliseconds; tests inject their own. */
  now?: () => number;
  /**
   * Remember that a key has no value too (until the next change or max age). For credential
   * lookups: an unknown name or token must not cost a database round trip a known one does not
   * (a timing oracle, and a cheap flood). Off for flows, where a miss is a 404 nobody retries hot.
   */
  rememberMisses?: boolean;
  /** The cache's name in metrics (default: its change topic). */
  name?: string;
  /** Binds a lookup counter to a cache by name (engine/metrics): told hit or miss on every get. */
  observeLookups?: (cache: string) => (hit: boolean) => void;
}

interface Entry<T> {
  value: T | undefined;
  loadStartedAt: number;
}

export class SnapshotCache<T> {
  readonly #entries: DigestKeyedLru<Entry<T>>;
  readonly #feed: ChangeFeed | undefined;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  readonly #rememberMisses: boolean;
  readonly #lookedUp: ((hit: boolean) => void) | undefined;
  /** Bumped on every clear, so a load that raced with a change is not stored. */
  #generation = 0;

  constructor(feed: ChangeFeed | undefined, topic: ChangeTopic, options: SnapshotCacheOptions = {}) {
    this.#feed = feed;
    this.#entries = new DigestKeyedLru(options.maxEntries ?? 10_000);
    this.#maxAgeMs = options.maxAgeMs ?? DEFAULT_CACHE_MAX_AGE_MS;
    this.#now = options.now ?? Date.now;
    this.#rememberMisses = options.rememberMisses ?? false;
    this.#lookedUp = options.observeLookups?.(options.name ?? topic);
    feed?.onChange((changed) => {
      if (changed === topic || changed === 'all') {
        this.#generation++;
        this.#entries.clear();
      }
    });
  }

  async get(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const live = this.#feed?.live ?? false;
    const loadStartedAt = this.#now();
    const entry = this.#entries.get(key);
    const hit = live && entry !== undefined && loadStartedAt - entry.loadStartedAt < this.#maxAgeMs;
    this.#lookedUp?.(hit);
    if (hit) return entry.value;
    if (entry) this.#entries.delete(key);
    const generation = this.#generation;
    const value = await load();
    // A miss is kept only when asked for (rememberMisses); a found value always is.
    if (live && (value !== undefined || this.#rememberMisses) && this.#feed?.live && generation === this.#generation) {
      this.#entries.set(key, { value, loadStartedAt });
    }
    return value;
  }
}
