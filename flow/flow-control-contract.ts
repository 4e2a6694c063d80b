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
// The engine computes every key and id (flow/control-keys.ts,
// engine/domain/flow-control/): the worker needs no key of its own.
// Engine-safe: types and constants only.
import type { FLOW_WORKFLOW_TYPE, FlowWorkflow } from './flow-contract.ts';
import type { AdmissionGate, ExecutionControl, GateKind } from './execution-gates.ts';
import type { CollectorInput } from './collector-contract.ts';
import type { ALERT_WORKFLOW_TYPE, AlertWorkflow } from './alert-contract.ts';
import type { RETENTION_WORKFLOW_TYPE, RetentionWorkflow } from './retention-contract.ts';

export type { AdmissionGate, ExecutionControl, GateKind };
export * from './collector-contract.ts';

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

/** The coordinator of each kind of gate. */
export const GATE_WORKFLOW_TYPES = Object.freeze({
  pause: PAUSE_GATE_WORKFLOW_TYPE,
  throttle: THROTTLE_WORKFLOW_TYPE,
  concurrency: CONCURRENCY_WORKFLOW_TYPE,
} as const satisfies Record<GateKind, string>);

// The coordinators' signatures, so that the engine and the worker start them with typed arguments
// without importing workflow code: every start names its workflow type's signature from here (or
// FlowWorkflow) as its type argument, e.g. `signalWithStart<GateWorkflow, [AdmissionRequest]>(…)`.

/** A gate's coordinator (pause, throttle, concurrency): started with the gate's settings, or with what it carried across continue-as-new. */
export type GateWorkflow = (carry: GateCarry) => Promise<void>;
export type CollectorWorkflow = (input: CollectorInput) => Promise<void>;
export type GatePageWorkflow = (input: GatePageInput) => Promise<void>;
export type UnclaimedGrantWorkflow = () => Promise<void>;

/**
 * Every workflow type with its signature: what workflows/index.ts exports under that name, and the
 * signature a start of that type names. test/unit/temporal-contract.test.ts holds the bundle and
 * every start in the engine to it.
 */
export interface WorkflowSignatures {
  [FLOW_WORKFLOW_TYPE]: FlowWorkflow;
  [CONCURRENCY_WORKFLOW_TYPE]: GateWorkflow;
  [THROTTLE_WORKFLOW_TYPE]: GateWorkflow;
  [PAUSE_GATE_WORKFLOW_TYPE]: GateWorkflow;
  [COLLECTOR_WORKFLOW_TYPE]: CollectorWorkflow;
  [GATE_PAGE_WORKFLOW_TYPE]: GatePageWorkflow;
  [UNCLAIMED_GRANT_WORKFLOW_TYPE]: UnclaimedGrantWorkflow;
  /** An alert rule's evaluation (flow/alert-contract.ts). */
  [ALERT_WORKFLOW_TYPE]: AlertWorkflow;
  /** The retention schedule's run (flow/retention-contract.ts). */
  [RETENTION_WORKFLOW_TYPE]: RetentionWorkflow;
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
  return Math.min(
    ADMISSION_DEADLINE.maxMs,
    ADMISSION_DEADLINE.minMs + Math.max(0, waiting) * ADMISSION_DEADLINE.perWaitingMs,
  );
}
