// OAuth 2.0 client-credentials tokens for connections, per worker process: a
// token is fetched once, shared by every request of that connection, and
// fetched again shortly before it expires (or when the connection changes:
// its version is part of the key). Concurrent requests wait on one fetch.
// Tokens live only in this process's memory: never in history, never logged.
import type { TokenGrant } from '../../flow/connection-kinds/connection-kind.ts';

export type { TokenGrant };

/** Refresh this long before expiry at most (less for short-lived tokens: a tenth of their life). */
const REFRESH_MARGIN_MS = 60_000;
/** A token without `expires_in` is reused this long. */
const UNDATED_TOKEN_MS = 60_000;

interface Entry {
  token: string;
  refreshAt: number;
}

export class OAuthTokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Map<string, Promise<string>>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The cached token for `key`, or the result of `fetch` (one fetch at a time per key). */
  async token(key: string, fetch: () => Promise<TokenGrant>): Promise<string> {
    const cached = this.#entries.get(key);
    if (cached && cached.refreshAt > this.#now()) return cached.token;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#fetchAndKeep(key, fetch).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** Forget a token the resource refused (401), so the next request fetches a new one. */
  invalidate(key: string): void {
    this.#entries.delete(key);
  }

  async #fetchAndKeep(key: string, fetch: () => Promise<TokenGrant>): Promise<string> {
    const startedAt = this.#now();
    const grant = await fetch();
    const lifetime = grant.expiresInMs ?? UNDATED_TOKEN_MS;
    const margin = Math.min(REFRESH_MARGIN_MS, lifetime / 10);
    this.#entries.set(key, { token: grant.accessToken, refreshAt: startedAt + lifetime - margin });
    return grant.accessToken;
  }
}
