// The execution log kept in workflow state: the steps run, with their
// descriptions, outcome and timings. Exposed by the `executionLog` query and
// returned as the workflow result.
import type { StepLogEntry, StepStatus } from '../shared/index.ts';

export class ExecutionLog {
  readonly entries: StepLogEntry[] = [];

  record(entry: Omit<StepLogEntry, 'finishedAt' | 'status'>, status: StepStatus, note?: string): void {
    const line: StepLogEntry = { ...entry, status, finishedAt: new Date(Date.now()).toISOString() };
    if (note !== undefined) line.note = note;
    this.entries.push(line);
  }
}
