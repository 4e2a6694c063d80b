// The state one execution's steps share: its input, the sync window, the
// execution log, the data formulas read (variables and step outputs) and the
// callbacks delivered to its waitForCallback steps.
import type { FormulaContext } from '../formula/index.ts';
import type { FlowExecutionInput } from '../shared/index.ts';
import type { CallbackInbox } from './callback-inbox.ts';
import type { ExecutionLog } from './execution-log.ts';
import type { SyncWindow } from './sync-window.ts';

export interface FlowRuntime {
  readonly input: FlowExecutionInput;
  readonly executionId: string;
  readonly window: SyncWindow;
  readonly log: ExecutionLog;
  readonly context: FormulaContext;
  readonly callbacks: CallbackInbox;
}
