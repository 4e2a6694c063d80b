// The delivery log's flood bound: how many refused or failed deliveries one
// engine stores one by one in a minute — at most `perSender` from one sender and
// `perMinute` in all — and, beyond, which summary row counts the rest. A summary
// row stands for one sender (or, beyond the senders it tracks, for all of them:
// `*`), one company, outcome and reason in one minute, so "N more refused calls
// from this sender in this minute" is one row however many came. Memory is
// bounded as well: at most `maxSenders` senders and `maxSummaries` summaries a
// minute, then everything folds into one summary per outcome and reason; only
// the current and the previous minute are kept. Accepted deliveries are
// authenticated calls that started executions (bounded by the rate limits): they
// are always stored. Pure, clocked by the caller.
import { randomUUID } from 'node:crypto';

export interface FloodLimits {
  perSender: number;
  perMinute: number;
  /** Senders tracked in one minute; later senders share the `*` summaries. */
  maxSenders?: number;
  /** Summary rows opened in one minute before they fold into one per outcome and reason. */
  maxSummaries?: number;
}

export interface BoundedDelivery {
  /** Milliseconds since the epoch, when the delivery was received. */
  at: number;
  sender: string;
  company: string;
  outcome: string;
  reason: string;
}

/** Store it as its own row, or count it on the summary row with this id (one id per summary and minute). */
export type Admission =
  | { store: true }
  | {
      store: false;
      summaryId: string;
      /** The summary's sender and company; null where it stands for any. */ sender: string | null;
      company: string | null;
    };

export const DEFAULT_MAX_SENDERS = 10_000;
export const DEFAULT_MAX_SUMMARIES = 500;
const ANY_SENDER = '*';

interface MinuteState {
  stored: number;
  perSender: Map<string, number>;
  /** Summary key → the id of its row. */
  summaries: Map<string, string>;
}

export class FloodBound {
  readonly #limits: Required<FloodLimits>;
  readonly #minutes = new Map<number, MinuteState>();
  readonly #newId: () => string;

  constructor(limits: FloodLimits, newId: () => string = randomUUID) {
    this.#newId = newId;
    this.#limits = {
      maxSenders: DEFAULT_MAX_SENDERS,
      maxSummaries: DEFAULT_MAX_SUMMARIES,
      ...limits,
    };
  }

  admit(delivery: BoundedDelivery): Admission {
    if (delivery.outcome === 'accepted') return { store: true };
    const minute = Math.floor(delivery.at / 60_000);
    const state = this.#minute(minute);
    const { perSender, perMinute, maxSenders, maxSummaries } = this.#limits;
    const known = state.perSender.get(delivery.sender);
    const tracked = known !== undefined || state.perSender.size < maxSenders;
    const fromSender = known ?? 0;
    if (tracked && fromSender < perSender && state.stored < perMinute) {
      state.perSender.set(delivery.sender, fromSender + 1);
      state.stored++;
      return { store: true };
    }
    let sender: string | null = tracked ? delivery.sender : null;
    let company: string | null = delivery.company;
    let key = summaryKey(sender ?? ANY_SENDER, company, delivery.outcome, delivery.reason);
    if (!state.summaries.has(key) && state.summaries.size >= maxSummaries) {
      sender = null;
      company = null;
      key = summaryKey(ANY_SENDER, '', delivery.outcome, delivery.reason);
    }
    let summaryId = state.summaries.get(key);
    if (summaryId === undefined) {
      summaryId = this.#newId();
      state.summaries.set(key, summaryId);
    }
    return { store: false, summaryId, sender, company };
  }

  /** The minutes tracked now (at most two): for tests and the bound's own check. */
  get trackedMinutes(): number {
    return this.#minutes.size;
  }

  #minute(minute: number): MinuteState {
    let state = this.#minutes.get(minute);
    if (!state) {
      state = { stored: 0, perSender: new Map(), summaries: new Map() };
      this.#minutes.set(minute, state);
      // The current and the previous minute (a report waits in the facade a second or so): older ones go.
      for (const old of this.#minutes.keys()) if (old < minute - 1) this.#minutes.delete(old);
      while (this.#minutes.size > 2) this.#minutes.delete(Math.min(...this.#minutes.keys()));
    }
    return state;
  }
}

function summaryKey(sender: string, company: string, outcome: string, reason: string): string {
  return [sender, company, outcome, reason].join('\u0000');
}
