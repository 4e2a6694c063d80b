// A map for state keyed by text that callers write (a company and activity
// from a URL path, a user name, a sender's address): bounded in entries and in
// bytes whatever the text is. Keys are stored as a fixed-size digest (128 bits
// of SHA-256, far beyond any chance of two keys meeting by accident or by
// design), so a long key costs no more memory than a short one; at the bound
// the least recently used entry makes room, in constant time. Map iteration
// order is insertion order, so moving an entry to the end on every use keeps
// the least recently used one first.
import { hash } from 'node:crypto';

export class DigestKeyedLru<V> {
  readonly #entries = new Map<string, V>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
    this.#maxEntries = maxEntries;
  }

  /** The entry for `key`, marked as just used. */
  get(key: string): V | undefined {
    const digest = keyDigest(key);
    const value = this.#entries.get(digest);
    if (value !== undefined) {
      this.#entries.delete(digest);
      this.#entries.set(digest, value);
    }
    return value;
  }

  /** Stores `value` for `key` as the most recently used entry; at the bound, the least recently used one goes. */
  set(key: string, value: V): void {
    const digest = keyDigest(key);
    this.#entries.delete(digest);
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(digest, value);
  }

  delete(key: string): void {
    this.#entries.delete(keyDigest(key));
  }

  clear(): void {
    this.#entries.clear();
  }

  values(): IterableIterator<V> {
    return this.#entries.values();
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** 22 characters whatever the key's length. */
export function keyDigest(key: string): string {
  return hash('sha256', key, 'base64url').slice(0, 22);
}
