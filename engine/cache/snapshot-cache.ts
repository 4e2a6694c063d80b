// A small cache of plain snapshots for the webhook hot path, cleared by the
// change feed and bounded in size. It only serves while the feed is live.
import type { ChangeFeed, ChangeTopic } from './change-feed.ts';

export class SnapshotCache<T> {
  readonly #entries = new Map<string, T>();
  readonly #feed: ChangeFeed | undefined;
  readonly #maxEntries: number;
  /** Bumped on every clear, so a load that raced with a change is not stored. */
  #generation = 0;

  constructor(feed: ChangeFeed | undefined, topic: ChangeTopic, maxEntries = 10_000) {
    this.#feed = feed;
    this.#maxEntries = maxEntries;
    feed?.onChange((changed) => {
      if (changed === topic || changed === 'all') {
        this.#generation++;
        this.#entries.clear();
      }
    });
  }

  async get(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const live = this.#feed?.live ?? false;
    if (live && this.#entries.has(key)) return this.#entries.get(key);
    const generation = this.#generation;
    const value = await load();
    // Only found values are kept: a miss (404, unknown user) is never served from memory.
    if (live && value !== undefined && this.#feed?.live && generation === this.#generation) {
      if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }
}
