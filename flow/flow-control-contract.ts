// What the engine, the flow workflow and the flow-control coordinators agree
// on (their messages are in flow-control-messages.ts). Flow control is built
// on Temporal alone, with one coordinator workflow per flow and key:
//  - concurrency, throttle and pause are *gates*: every call starts its own
//    execution as always (durable before the caller is answered). An
//    Instant-return one starts with a delay and the engine hands it to its
//    first gate; a sync one runs and asks its first gate itself. Each gate
//    hands it on to the next, and the last one's grant — a signal-with-start,
//    which wakes a delayed execution — lets its steps run. So a waiting
//    execution costs Temporal storage, not a worker's memory, and a gate's
//    queue keeps what it carries bounded (gate-queue.ts, GATE_LIMITS);
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
/** A page of a gate's waiting executions, kept in Temporal while the gate's queue is long. */
export const GATE_PAGE_WORKFLOW_TYPE = 'flowGatePageWorkflow';
/**
 * What a grant starts when the execution it is for is unknown to Temporal (closed longer ago than
 * the namespace keeps it): a grant is a signal-with-start, the one signal that wakes an execution
 * started with a delay, and its start half must name a type. This one ends at once.
 */
export const UNCLAIMED_GRANT_WORKFLOW_TYPE = 'flowUnclaimedGrantWorkflow';

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
  /**
   * Set for every execution started since gates hand executions on and wake them (admission.ts);
   * absent in executions started before, which replay the gate-by-gate way they ran. (A flag in
   * the input, not a Temporal patch: a patch costs each execution a marker and a search attribute
   * update.)
   */
  handOn?: true;
}

/**
 * Sent to a gate's coordinator (signal-with-start, so the first request starts it): by the engine
 * for an Instant-return execution it started with a delay, by the execution itself otherwise
 * (sync mode, or woken by its deadline), and by a gate that let the execution pass to the next one.
 * Repeats are harmless: a coordinator knows an execution once.
 */
export interface AdmissionRequest {
  executionId: string;
  /** When the call was accepted (ms since the epoch): its place in the queue. */
  arrivedAt: number;
  gate: AdmissionGate;
  /** The execution's gates after this one: passing this gate hands it on to `next[0]` instead of waking it. */
  next?: AdmissionGate[];
  /** The gates before this one at which it waited behind others (for metrics). */
  waitedAt?: GateKind[];
}

/** An execution waiting at a gate. */
export interface QueuedExecution {
  executionId: string;
  arrivedAt: number;
  next?: AdmissionGate[];
  /** The gates at which it waited behind others, this one included when it found every slot taken (or others waiting). */
  waitedAt?: GateKind[];
}

/** Sent to the execution by its last gate: its steps may run. */
export interface AdmissionGrant {
  coordinatorId: string;
  /** It waited behind others at this gate (for metrics). */
  queued: boolean;
  /** Every gate at which it waited behind others (for metrics). */
  waitedAt?: GateKind[];
}

/** What each kind of gate keeps besides its queue. */
export interface GateSettings {
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

/** What a gate's coordinator holds now (the flowhookGateState query): bounded, whatever the backlog. */
export interface GateState extends GateSettings {
  /** Executions waiting, all told (in memory and in pages). */
  waiting: number;
  /** The first of them, in order (at most 100). */
  first: QueuedExecution[];
  /** Pages of waiting executions kept in Temporal (gate-queue.ts). */
  pages: number;
}

/** A gate's backlog (the flowhookGateBacklog query), for the engine's cap on waiting calls. */
export interface GateBacklog {
  waiting: number;
}

/** A page of waiting executions kept in Temporal, in order, by a gate whose queue is long (gate-queue.ts). */
export interface GatePageRef {
  id: string;
  count: number;
}

/** The queue a coordinator carries across continue-as-new: bounded, the rest is in its pages. */
export interface GateQueueCarry {
  head: QueuedExecution[];
  tail: QueuedExecution[];
  pages: GatePageRef[];
  /** The page asked for its entries, if any (it answers with gatePageEntriesSignal). */
  taking?: string;
  /** Numbers the next page's id. */
  nextPage: number;
}

/** The state a gate's coordinator starts with: the gate's settings when a request starts it, its carried state after continue-as-new. */
export interface GateCarry extends GateSettings {
  queue?: GateQueueCarry;
  /** What the gate is (its requests say): shown in its current details, since its summary does not survive continue-as-new. */
  summary?: string;
  /** Throttle: executions it let pass lately, so a repeated request does not take a second token. */
  passed?: string[];
}

/** The input of a page of a gate's waiting executions (flowGatePageWorkflow). */
export interface GatePageInput {
  coordinatorId: string;
  entries: QueuedExecution[];
}

/** Bounds of a gate: what it carries stays far below Temporal's 2 MiB payloads, whatever waits. */
export const GATE_LIMITS = {
  /** Waiting executions kept in the coordinator's own state, and their JSON size… */
  headWaiters: 2000,
  headBytes: 256 * 1024,
  /** …and per page kept in Temporal. */
  pageWaiters: 1000,
  pageBytes: 256 * 1024,
  /** A page is taken back when fewer wait in memory. */
  refillBelow: 500,
  /** Grants (and hand-overs) per local activity, and per workflow task of a gate's coordinator. */
  grantChunk: 200,
  /** Executions a throttle remembers having let pass. */
  remembered: 2000,
  /** The cap on executions waiting at one gate (FLOWHOOK_FLOW_CONTROL_MAX_WAITING's default). */
  defaultMaxWaiting: 100_000,
} as const;

/**
 * How long a waiting execution sleeps before it asks its gate itself (its start delay when the
 * engine hands it to its gate; its wait for a grant after it asked): the floor, and how much each
 * execution already waiting adds (so a long backlog does not wake its executions long before
 * their turn), and the ceiling.
 */
export const ADMISSION_DEADLINE = {
  minMs: 10 * 60_000,
  perWaitingMs: 100,
  maxMs: 6 * 3_600_000,
} as const;

/** The deadline of an execution that waits behind `waiting` others (ADMISSION_DEADLINE). */
export function admissionDeadlineMs(waiting: number): number {
  return Math.min(ADMISSION_DEADLINE.maxMs, ADMISSION_DEADLINE.minMs + Math.max(0, waiting) * ADMISSION_DEADLINE.perWaitingMs);
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

/** A debounce's maxWaitMs is always set by engines since the default (below); a collector started before may lack it. */
export type CollectorPolicy = { kind: 'debounce'; periodMs: number; maxWaitMs?: number } | { kind: 'batch'; maxSize: number; maxWaitMs: number };

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
