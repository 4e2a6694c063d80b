// What the engine and a flow's debounce or batch collector agree on: the calls the engine hands it
// (the collectCall update), the seed of the execution each window becomes, and the bounds of what a
// collector keeps and hands on. Part of flow control's contract (flow-control-contract.ts re-exports
// it), in its own file because the gates' half is long enough.
import type { SearchAttributePair } from '@temporalio/common';
import type { AdmissionGate, ExecutionControl } from './execution-gates.ts';
import type { DirectTriggerRequest, FlowExecutionInput } from './flow-contract.ts';

/**
 * Everything the engine puts into an execution's start besides its input: the
 * collector starts the execution a window becomes with the seed of the
 * window's first call, so its id, grant and memo are the engine's as always.
 */
export interface ExecutionSeed {
  workflowId: string;
  executionGrant: string;
  memo: Record<string, unknown>;
  searchAttributes?: SearchAttributePair[];
  staticSummary: string;
  staticDetails: string;
  priority: { priorityKey?: number; fairnessKey: string };
  control?: ExecutionControl;
}

/** One call handed to a collector (the collectCall update). */
export interface CollectedCall {
  /** The update id: a retried keyed call has the same one and is counted once. */
  callId: string;
  /** Set when the call carries an idempotency key: the collector remembers it for a day. */
  keyed: boolean;
  /** A keyed call's payload HMAC: the same key with another payload is refused. */
  payloadDigest?: string;
  /** The call's payload text exactly as sent. */
  payloadJson: string;
  direct?: DirectTriggerRequest;
  caller: string;
  /** Accepted while the flow was paused: the execution it joins waits for `flow resume`. */
  held: boolean;
  seed: ExecutionSeed;
}

/** The collectCall update's answer: the execution the call joined (it starts when its window closes). */
export interface CollectedAnswer {
  executionId: string;
  /** True when the call was accepted before (same key). */
  repeated: boolean;
  /** True when the key was accepted before with another payload: the call is refused, nothing was collected. */
  reused?: boolean;
}

/** A debounce's maxWaitMs is always set by engines since the default (below); a collector started before may lack it. */
export type CollectorPolicy =
  { kind: 'debounce'; periodMs: number; maxWaitMs?: number } | { kind: 'batch'; maxSize: number; maxWaitMs: number };

/**
 * A debounce's `maxWait` when the flow names none: ten periods, at most a day. Without a bound any
 * caller that knows a key — the key is often a customer or order id — could put its execution off
 * for ever by calling again within each period.
 */
export const DEBOUNCE_DEFAULT_MAX_WAIT = { periods: 10, maxMs: 86_400_000 } as const;

/** The patch (Temporal `patched()`) marking a collector begun without maxWait that took the default from then on. */
export const DEBOUNCE_DEFAULT_MAX_WAIT_PATCH = 'flowhook-debounce-default-max-wait';

export function defaultDebounceMaxWaitMs(periodMs: number): number {
  return Math.min(DEBOUNCE_DEFAULT_MAX_WAIT.periods * periodMs, DEBOUNCE_DEFAULT_MAX_WAIT.maxMs);
}

/** The input of every execution a collector starts, minus what each window brings (payload, caller, seed). */
export type ExecutionTemplate = Omit<
  FlowExecutionInput,
  'payloadJson' | 'caller' | 'direct' | 'executionGrant' | 'control' | 'coalesced' | 'batch'
>;

export interface CollectorInput {
  policy: CollectorPolicy;
  template: ExecutionTemplate;
  /** Set by continue-as-new. */
  carried?: CollectorCarry;
}

/** One execution in the making: the calls of one debounce burst or one batch. */
export interface CollectorWindow {
  /** The seed of the window's first call: the execution's id, grant, memo, search attributes. */
  seed: ExecutionSeed;
  /** When its first and its latest call came (ms since the epoch, workflow time). */
  openedAt: number;
  lastAt: number;
  /** Calls in the window; debounce keeps the latest ones within COLLECTED_LIMITS, `count` counts all. */
  count: number;
  calls: (Pick<CollectedCall, 'payloadJson' | 'direct' | 'caller'> & {
    /** ISO 8601, when the call reached the collector (Temporal's clock): arrival order. */ receivedAt: string;
  })[];
  /** What the calls kept add to the execution's serialised input (window-size.ts). */
  bytes: number;
  /** A call of it was accepted while the flow was paused: that call's pause gate. */
  pauseGate?: AdmissionGate;
  /** Its execution's start failed (other than for a taken id): tried again from this time on (ms since the epoch). */
  retryAt?: number;
  /** How often its start failed, for the backoff. */
  failedStarts?: number;
}

export interface CollectorCarry {
  windows: CollectorWindow[];
  /** Keyed calls seen: [call id, execution id, accepted at (ms), payload digest]. */
  remembered: [string, string, number, string?][];
}

/** The failure type of a collected call too large for any window of its flow (the engine answers 413). */
export const COLLECTED_CALL_TOO_LARGE = 'CollectedCallTooLarge';

/**
 * Bounds of what a collector hands on. Temporal refuses payloads over 2 MiB, and what counts is the
 * execution's input as it is serialised — payload texts as JSON strings (a quote costs two bytes,
 * a control character six), provider headers, the flow's steps — so windows are measured that way
 * (window-size.ts), not by their raw payload bytes.
 */
export const COLLECTED_LIMITS = {
  /** Trigger.Coalesced.payloads keeps the latest calls up to this many… */
  coalescedPayloads: 100,
  /** …and a window's execution input (serialised) is at most this large: a batch closes before it would be larger, debounce drops its oldest payloads. */
  windowBytes: 1024 * 1024,
  /** How long a keyed call is remembered, and how many are at most, and how much of their ids. */
  rememberMs: 86_400_000,
  remembered: 5000,
  rememberedBytes: 192 * 1024,
} as const;
