// What the engine, the flow workflow and the flow-control coordinators agree
// on (their messages are in flow-control-messages.ts). Flow control is built
// on Temporal alone, with one coordinator workflow per flow and key:
//  - concurrency, throttle and pause are *gates*: every call starts its own
//    execution as always (durable before the caller is answered); the
//    execution asks the gate's coordinator (signal-with-start, from a local
//    activity) and runs its steps once the coordinator signals a grant;
//  - debounce and batch *collect*: the engine hands the call to the key's
//    collector with update-with-start (durable before the caller is
//    answered), and the collector starts one execution per window (a child
//    workflow that outlives it).
// The engine computes every key and id (workflows/shared/control-keys.ts,
// engine/flow-control/): the worker needs no key of its own.
// Engine-safe: types and constants only.
import type { SearchAttributePair } from '@temporalio/common';
import type { DirectTriggerRequest, FlowExecutionInput } from './flow-contract.ts';

/** Workflow types of the coordinators (names under which workflows/index.ts exports them). */
export const CONCURRENCY_WORKFLOW_TYPE = 'flowConcurrencyWorkflow';
export const THROTTLE_WORKFLOW_TYPE = 'flowThrottleWorkflow';
export const PAUSE_GATE_WORKFLOW_TYPE = 'flowPauseGateWorkflow';
export const COLLECTOR_WORKFLOW_TYPE = 'flowCollectorWorkflow';

/** Coordinators' tasks go first: an execution waiting for a grant must not also wait behind the backlog it is part of. */
export const COORDINATOR_PRIORITY = 1;

export type GateKind = 'pause' | 'throttle' | 'concurrency';

/** The coordinator of each kind of gate. */
export const GATE_WORKFLOW_TYPES: Readonly<Record<GateKind, string>> = {
  pause: PAUSE_GATE_WORKFLOW_TYPE,
  throttle: THROTTLE_WORKFLOW_TYPE,
  concurrency: CONCURRENCY_WORKFLOW_TYPE,
};

/**
 * One gate an execution passes before its steps run; gates are passed in the order pause, throttle,
 * concurrency. `summary` is what the Temporal UI shows for the coordinator (names and labels only).
 */
export type AdmissionGate =
  | { kind: 'pause'; coordinatorId: string; summary: string }
  | { kind: 'throttle'; coordinatorId: string; summary: string; keyLabel: string; perSecond: number; burst: number }
  | { kind: 'concurrency'; coordinatorId: string; summary: string; keyLabel: string; limit: number };

/** The flow control of one execution, decided by the engine when the call arrived. */
export interface ExecutionControl {
  gates: AdmissionGate[];
}

/** Sent to a gate's coordinator (signal-with-start). Repeats are harmless: coordinators know an execution once. */
export interface AdmissionRequest {
  executionId: string;
  /** When Temporal started the execution (ms since the epoch): its place in the queue. */
  arrivedAt: number;
  gate: AdmissionGate;
}

/** An execution waiting at a gate. */
export interface QueuedExecution {
  executionId: string;
  arrivedAt: number;
}

/** Sent to the execution: it may go past the gate. `queued`: it waited behind others (for metrics). */
export interface AdmissionGrant {
  coordinatorId: string;
  queued: boolean;
}

/** What a gate's coordinator holds, for the coordinatorState query (and continue-as-new). */
export interface GateState {
  /** The executions waiting, in arrival order. */
  queue: QueuedExecution[];
  /** Concurrency: execution id → when it got its slot (ms since the epoch, workflow time). */
  holders?: Record<string, number>;
  limit?: number;
  /** Throttle: tokens left and when they were counted. */
  tokens?: number;
  countedAt?: number;
  perSecond?: number;
  burst?: number;
  /** Pause gate: whether the flow is paused. */
  paused?: boolean;
}

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

export type CollectorPolicy = { kind: 'debounce'; periodMs: number; maxWaitMs?: number } | { kind: 'batch'; maxSize: number; maxWaitMs: number };

/** The input of every execution a collector starts, minus what each window brings (payload, caller, seed). */
export type ExecutionTemplate = Omit<FlowExecutionInput, 'payloadJson' | 'caller' | 'direct' | 'executionGrant' | 'control' | 'coalesced' | 'batch'>;

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
  /** UTF-8 length of the payloads kept. */
  bytes: number;
  /** A call of it was accepted while the flow was paused: that call's pause gate. */
  pauseGate?: AdmissionGate;
}

export interface CollectorCarry {
  windows: CollectorWindow[];
  /** Keyed calls seen: [call id, execution id, accepted at (ms), payload digest]. */
  remembered: [string, string, number, string?][];
}

/** Bounds of what one execution carries: Temporal refuses payloads over 2 MB. */
export const COLLECTED_LIMITS = {
  /** Trigger.Coalesced.payloads keeps the latest calls up to this many… */
  coalescedPayloads: 100,
  /** …and up to this much text; a batch closes early before it would hold more. */
  collectedBytes: 1_000_000,
  /** How long a keyed call is remembered, and how many are at most. */
  rememberMs: 86_400_000,
  remembered: 5000,
} as const;
