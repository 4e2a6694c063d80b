// The execution log kept in workflow state: the steps run, with their
// descriptions, outcome and timings. Exposed by the `executionLog` query and
// returned as the workflow result.
import type { StepLogEntry, StepStatus } from '../shared/index.ts';

export const NOTE_WITHHELD = 'withheld (doNotLogPayload)';

export class ExecutionLog {
  readonly entries: StepLogEntry[] = [];
  readonly #withholdNotes: boolean;

  /** doNotLogPayload: notes (log messages, failure reasons) may quote the payload, so they are withheld. */
  constructor(withholdNotes = false) {
    this.#withholdNotes = withholdNotes;
  }

  record(entry: Omit<StepLogEntry, 'finishedAt' | 'status'>, status: StepStatus, note?: string): void {
    const line: StepLogEntry = { ...entry, status, finishedAt: new Date(Date.now()).toISOString() };
    if (note !== undefined) line.note = this.#withholdNotes ? NOTE_WITHHELD : note;
    this.entries.push(line);
  }
}
