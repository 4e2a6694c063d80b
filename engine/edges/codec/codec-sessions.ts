// Login sessions of the codec server: the Temporal dev server's UI has no
// login of its own and so cannot pass an access token, so an operator proves
// once (on the codec server's login page) that they hold an admin credential
// and gets a short-lived session cookie. Sessions live in this process's
// memory only, keyed by the SHA-256 of the cookie value (a memory dump holds
// no usable cookie), and die with the process; they are a convenience for one
// operator's browser, not state other engines need. A session lasts no longer
// than the token it was opened with (codec-auth.ts checks it on every use).
import { newSessionSecret, sessionKey } from '../http/browser-sessions.ts';

export interface CodecOperator {
  /** The service account (or `bootstrap-admin`, or the token's subject) — for the log, never a secret. */
  name: string;
  /** How the operator proved it: a Bearer service-account token, an OAuth token, or a session. */
  via: 'service-account' | 'oauth' | 'session';
}

/** The service-account token a session was opened with: its account and the SHA-256 the directory knows it by (never the token). */
export interface SessionCredential {
  account: string;
  tokenHash: string;
}

export interface CodecSession {
  operator: CodecOperator;
  /**
   * Checked again on every use: a rotated token, a disabled, deleted or demoted account ends the
   * session. Absent for FLOWHOOK_ADMIN_TOKEN, which changes only with a restart (ending every session).
   */
  credential?: SessionCredential;
  expiresAt: number;
}

/** Enough for every operator of a deployment; a flood of logins evicts the oldest, never grows memory. */
const MAX_SESSIONS = 1000;

export class CodecSessions {
  readonly #sessions = new Map<string, CodecSession>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(ttlMs: number, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** A new session for the operator; returns the cookie value (shown to nobody but the browser). */
  open(operator: CodecOperator, credential: SessionCredential | undefined): { cookieValue: string; expiresAt: number } {
    this.#sweep();
    if (this.#sessions.size >= MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    const { cookieValue, key } = newSessionSecret();
    const expiresAt = this.#now() + this.#ttlMs;
    this.#sessions.set(key, { operator: { name: operator.name, via: 'session' }, credential, expiresAt });
    return { cookieValue, expiresAt };
  }

  find(cookieValue: string): CodecSession | undefined {
    const key = sessionKey(cookieValue);
    const session = this.#sessions.get(key);
    if (!session) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.#sessions.delete(key);
      return undefined;
    }
    return session;
  }

  close(cookieValue: string): void {
    this.#sessions.delete(sessionKey(cookieValue));
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, session] of this.#sessions) if (session.expiresAt <= now) this.#sessions.delete(key);
  }
}
