// The state one execution's steps share: its input, the sync window, the
// execution log, the data formulas read (variables and step outputs) and the
// callbacks delivered to its waitForCallback steps. Each part is declared by
// what the steps and the interpreter's step loop use of it, so this folder
// needs nothing of workflows/interpreter/: the interpreter's classes
// (sync-window.ts, execution-log.ts, callback-inbox.ts) fill these shapes,
// and flow-workflow.ts hands them in.
import type { FormulaContext } from '../../flow/formula/index.ts';
import type { CallbackDelivery } from '../../flow/callback-contract.ts';
import type { FlowExecutionInput, StepLogEntry, StepStatus } from '../../flow/index.ts';

/** The caller's synchronous response window (interpreter/sync-window.ts), as respond and the deferrals use it. */
export interface StepWindow {
  /** Open while a caller may still be waiting: sync mode, nothing decided, deadline not passed. */
  readonly isOpen: boolean;
  /** A caller waits for a respond step (WAIT_FOR_RESPONSE_STEP), whether or not the window is still open. */
  readonly isSync: boolean;
  respond(statusCode: number, contentType: string, body: string): void;
  /** A respond step reached after the window timed out: returns whether its answer was kept as the late answer. */
  respondAfterTimeout(statusCode: number, contentType: string, body: string): boolean;
}

/** The execution log (interpreter/execution-log.ts), as the step loop writes a step's line. */
export interface StepLog {
  record(entry: Omit<StepLogEntry, 'finishedAt' | 'status'>, status: StepStatus, note?: string): void;
}

/** A delivery as the step gets it. */
export interface ReceivedCallback {
  delivery: CallbackDelivery;
  /** ISO time the execution accepted it (workflow time). */
  receivedAt: string;
}

/** The execution's callback inbox (interpreter/callback-inbox.ts), as a waitForCallback step takes its callback. */
export interface StepCallbacks {
  /** Whether a delivery waits for the step (what its wait's condition asks). */
  has(step: string): boolean;
  /** The held delivery, which the step now has. */
  take(step: string): ReceivedCallback | undefined;
  /** The step's wait timed out without a delivery: later ones are refused as expired. */
  expire(step: string): void;
}

export interface FlowRuntime {
  readonly input: FlowExecutionInput;
  readonly executionId: string;
  readonly window: StepWindow;
  readonly log: StepLog;
  readonly context: FormulaContext;
  readonly callbacks: StepCallbacks;
}
