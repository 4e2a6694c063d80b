// Limits on signing in to the console with an admin token, so that nobody can
// try tokens at speed (a non-browser client forges any Origin it likes):
//   per sender      five failures free, then each attempt waits after the
//                   last failure — 1 s, doubling to at most 15 min; a
//                   sender's failures are forgotten an hour after its last;
//   per deployment  at most 60 failures in 10 minutes, whoever sends them.
// An attempt counts as a failure from the moment it is admitted (so a burst
// of parallel attempts cannot slip through before the first one fails) and is
// taken back when the token turns out right. A refused attempt is not checked
// at all: a held-back sender learns nothing about any token.
//
// The sender is the TCP peer (an IPv6 one by its /64, the block a subscriber
// holds): behind a proxy that is the proxy, so everyone behind it is one
// sender. State lives in each engine's memory; the deployment's budget is
// shared out among the live engines (engine/domain/limits/engine-membership.ts), so
// N engines together admit about 60 failures in 10 minutes, while a sender
// spread over N engines by a load balancer gets N times the free failures —
// the doubling wait still holds it back. Pure apart from the clock it is handed.
import { isIPv6 } from 'node:net';
import { DigestKeyedLru } from '../../infrastructure/cache/digest-keyed-lru.ts';

export interface SignInLimits {
  freeFailures: number;
  firstDelayMs: number;
  maxDelayMs: number;
  forgetAfterMs: number;
  /** Failures of the whole deployment within deploymentWindowMs. */
  deploymentFailures: number;
  deploymentWindowMs: number;
}

export const SIGN_IN_LIMITS: Readonly<SignInLimits> = Object.freeze({
  freeFailures: 5,
  firstDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
  deploymentFailures: 60,
  deploymentWindowMs: 10 * 60_000,
});

/** Senders remembered at once; past it the least recently failing is forgotten (the deployment's budget still holds). */
const MAX_SENDERS = 10_000;

export type SignInVerdict =
  | { allowed: true; attempt: SignInAttempt }
  | { allowed: false; reason: 'sender' | 'deployment'; retryAfterSeconds: number };

/** An admitted attempt, counted as failed until `succeeded` takes it back. */
export interface SignInAttempt {
  succeeded(): void;
}

interface SenderRecord {
  failures: number;
  lastFailureAt: number;
}

export class SignInLimiter {
  readonly #limits: SignInLimits;
  readonly #liveEngines: () => number;
  readonly #senders = new DigestKeyedLru<SenderRecord>(MAX_SENDERS);
  /** When each failure of the window happened, oldest first: at most the budget's length. */
  #recent: number[] = [];

  constructor(limits: SignInLimits = SIGN_IN_LIMITS, liveEngines: () => number = () => 1) {
    this.#limits = limits;
    this.#liveEngines = liveEngines;
  }

  admit(sender: string, nowMs: number): SignInVerdict {
    const limits = this.#limits;
    const known = this.#senders.get(sender);
    const record =
      known && nowMs - known.lastFailureAt < limits.forgetAfterMs ? known : { failures: 0, lastFailureAt: 0 };
    const waitMs = record.lastFailureAt + delayAfter(limits, record.failures) - nowMs;
    if (waitMs > 0) return { allowed: false, reason: 'sender', retryAfterSeconds: Math.ceil(waitMs / 1000) };
    this.#recent = this.#recent.filter((at) => nowMs - at < limits.deploymentWindowMs);
    if (this.#recent.length >= this.#share()) {
      return {
        allowed: false,
        reason: 'deployment',
        retryAfterSeconds: Math.max(1, Math.ceil((this.#recent[0]! + limits.deploymentWindowMs - nowMs) / 1000)),
      };
    }
    record.failures += 1;
    record.lastFailureAt = nowMs;
    this.#senders.set(sender, record);
    this.#recent.push(nowMs);
    let settled = false;
    return {
      allowed: true,
      attempt: {
        succeeded: () => {
          if (settled) return;
          settled = true;
          record.failures = Math.max(0, record.failures - 1);
          const index = this.#recent.lastIndexOf(nowMs);
          if (index >= 0) this.#recent.splice(index, 1);
        },
      },
    };
  }

  /** This engine's part of the deployment's budget: at least one failure, so a sign-in can be tried at all. */
  #share(): number {
    const engines = this.#liveEngines();
    return Math.max(
      1,
      Math.ceil(this.#limits.deploymentFailures / (Number.isFinite(engines) && engines >= 1 ? Math.floor(engines) : 1)),
    );
  }
}

/** How long after its last failure a sender with this many failures waits. */
export function delayAfter(limits: SignInLimits, failures: number): number {
  if (failures < limits.freeFailures) return 0;
  return Math.min(limits.maxDelayMs, limits.firstDelayMs * 2 ** Math.min(30, failures - limits.freeFailures));
}

/** The sender of a connection as the limits count it: an IPv4 address (also when IPv4-mapped), or an IPv6 /64. */
export function senderOfSocket(remoteAddress: string | undefined): string {
  const address = (remoteAddress ?? '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => (/^[0-9a-f]{1,4}$/.test(group) ? parseInt(group, 16).toString(16) : '0'))
    .join(':')}::/64`;
}
