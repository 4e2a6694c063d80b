// The state one execution's steps share: its input, the sync window, the
// execution log and the data formulas read (variables and step outputs).
import type { FormulaContext } from '../formula/index.ts';
import type { FlowExecutionInput } from '../shared/index.ts';
import type { ExecutionLog } from './execution-log.ts';
import type { SyncWindow } from './sync-window.ts';

export interface FlowRuntime {
  readonly input: FlowExecutionInput;
  readonly executionId: string;
  readonly window: SyncWindow;
  readonly log: ExecutionLog;
  readonly context: FormulaContext;
}
