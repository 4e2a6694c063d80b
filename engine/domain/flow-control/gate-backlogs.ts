// The cap on executions waiting at one gate (FLOWHOOK_FLOW_CONTROL_MAX_WAITING,
// per key): a call that would wait behind a full backlog is refused with 429
// and Retry-After before anything starts — never accepted and then stalled.
// No call waits for the count: each engine keeps, per gate, the backlog the
// gate's coordinator last reported plus the calls it accepted for that gate
// since. It asks the gate (the flowhookGateBacklog query, in the background,
// at most once a second) only once that count nears the cap — half of it,
// shared among the live engines — so the gates of a healthy flow are never
// asked, and with several engines the cap still holds within about a
// second's calls. The same counts tell how fast a gate drains, which is the
// Retry-After.
import type { AdmissionGate } from '../../../flow/flow-control-contract.ts';
import { LimitRefusedError } from '../limits/webhook-limits.ts';

export interface GateBacklogOptions {
  maxWaiting: number;
  /** The coordinator's own count; undefined when it cannot be asked now (the estimate stands). */
  ask(coordinatorId: string): Promise<number | undefined>;
  now?: () => number;
  /** How often a gate with calls is asked (ms). */
  refreshMs?: number;
  /** Gates remembered at most (the least recently used are forgotten). */
  maxGates?: number;
  /** Engines sharing the calls (engine/domain/limits/engine-membership.ts): each sees about 1/N of a gate's. */
  liveEngines?: () => number;
}

interface Backlog {
  /** What the coordinator reported… */
  reported: number;
  reportedAt: number;
  /** …and the calls this engine accepted for the gate since it was asked. */
  since: number;
  /** When it was last asked (answered or not): a gate is asked at most once per refreshMs. */
  askedAt: number;
  asking: boolean;
  /** Executions the gate lets pass per second, as last measured. */
  drainPerSecond?: number;
}

/** Retry-After when a gate's drain has not been measured yet, and its bounds (seconds). */
const RETRY_AFTER = { unknown: 30, min: 1, max: 600 } as const;

export class GateBacklogs {
  readonly #options: Required<GateBacklogOptions>;
  readonly #gates = new Map<string, Backlog>();

  constructor(options: GateBacklogOptions) {
    this.#options = { now: Date.now, refreshMs: 1000, maxGates: 10_000, liveEngines: () => 1, ...options };
  }

  /** Executions waiting at the gate, as far as this engine knows. */
  estimate(coordinatorId: string): number {
    const backlog = this.#gates.get(coordinatorId);
    return backlog ? backlog.reported + backlog.since : 0;
  }

  /** Refuses the call when one of its gates is at the cap; asks the gates whose count is old. */
  check(gates: readonly AdmissionGate[]): void {
    for (const gate of gates) {
      const backlog = this.#backlog(gate.coordinatorId);
      const waiting = backlog.reported + backlog.since;
      if (waiting < this.#options.maxWaiting) continue;
      const retryAfter = this.#retryAfter(backlog, waiting);
      throw new LimitRefusedError(
        'flow_control_backlog',
        `Too many executions wait for this flow's ${gate.kind}${gate.kind !== 'pause' && gate.keyLabel !== '' ? ` key ${gate.keyLabel}` : ''} (${this.#options.maxWaiting} at most; FLOWHOOK_FLOW_CONTROL_MAX_WAITING); retry after ${retryAfter} s`,
        retryAfter,
      );
    }
  }

  /** The call was accepted: one more waits at each of its gates. */
  accepted(gates: readonly AdmissionGate[]): void {
    for (const gate of gates) this.#backlog(gate.coordinatorId).since += 1;
  }

  #backlog(coordinatorId: string): Backlog {
    let backlog = this.#gates.get(coordinatorId);
    if (backlog) {
      // Most recently used last: the first entry is the one to forget.
      this.#gates.delete(coordinatorId);
    } else {
      backlog = { reported: 0, reportedAt: 0, since: 0, askedAt: 0, asking: false };
      if (this.#gates.size >= this.#options.maxGates) this.#gates.delete(this.#gates.keys().next().value!);
    }
    this.#gates.set(coordinatorId, backlog);
    const nearCap =
      backlog.reported + backlog.since >= this.#options.maxWaiting / (2 * Math.max(1, this.#options.liveEngines()));
    if (nearCap && !backlog.asking && this.#options.now() - backlog.askedAt >= this.#options.refreshMs)
      this.#refresh(coordinatorId, backlog);
    return backlog;
  }

  #refresh(coordinatorId: string, backlog: Backlog): void {
    backlog.asking = true;
    const askedAt = this.#options.now();
    backlog.askedAt = askedAt;
    const sinceAtAsk = backlog.since;
    const before = backlog.reported + sinceAtAsk;
    this.#options
      .ask(coordinatorId)
      .then((reported) => {
        if (reported === undefined) return;
        const seconds = (this.#options.now() - backlog.reportedAt) / 1000;
        // What was there (and came) minus what is left is what passed.
        if (backlog.reportedAt > 0 && seconds > 0 && before > 0)
          backlog.drainPerSecond = Math.max(0, before - reported) / seconds;
        backlog.reported = reported;
        backlog.reportedAt = askedAt;
        backlog.since -= sinceAtAsk;
      })
      .catch(() => undefined)
      .finally(() => {
        backlog.asking = false;
      });
  }

  #retryAfter(backlog: Backlog, waiting: number): number {
    const rate = backlog.drainPerSecond;
    if (!rate) return RETRY_AFTER.unknown;
    const seconds = Math.ceil((waiting - this.#options.maxWaiting + 1) / rate);
    return Math.min(RETRY_AFTER.max, Math.max(RETRY_AFTER.min, seconds));
  }
}
