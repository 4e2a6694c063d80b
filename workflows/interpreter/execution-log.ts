// The execution log kept in workflow state: the trigger that started the
// execution, then the steps run, with their descriptions, outcome and timings.
// Exposed by the `executionLog` query (so `flowhook execution show`) and
// returned as the workflow result.
import type { FlowExecutionInput, StepLogEntry, StepStatus } from '../../flow/index.ts';
import type { StepLog } from '../steps/flow-runtime.ts';

export const NOTE_WITHHELD = 'withheld (doNotLogPayload)';

/** The path of the trigger's line; step lines have paths like `steps[0]`. */
export const TRIGGER_PATH = 'trigger';

const MODE_LABELS: Record<FlowExecutionInput['trigger']['responseMode'], string> = {
  INSTANT_RETURN: 'instant return',
  WAIT_FOR_RESPONSE_STEP: 'wait for response',
};

export class ExecutionLog implements StepLog {
  readonly entries: StepLogEntry[] = [];
  readonly #withholdNotes: boolean;

  /** doNotLogPayload: notes (log messages, failure reasons) may quote the payload, so they are withheld. */
  constructor(withholdNotes = false) {
    this.#withholdNotes = withholdNotes;
  }

  /**
   * The first line: the webhook trigger with its Description, which says what triggered the flow,
   * so it belongs in the execution history. Flow metadata only (description, activity, response mode), never payload, so
   * the line is the same for doNotLogPayload flows.
   */
  recordTrigger(trigger: FlowExecutionInput['trigger'], startedAt: string): void {
    this.entries.push({
      path: TRIGGER_PATH,
      type: 'webhook',
      name: '',
      description: trigger.description,
      status: 'completed',
      startedAt,
      finishedAt: startedAt,
      note: `activity ${trigger.activity} · ${MODE_LABELS[trigger.responseMode] ?? trigger.responseMode}`,
    });
  }

  record(entry: Omit<StepLogEntry, 'finishedAt' | 'status'>, status: StepStatus, note?: string): void {
    const line: StepLogEntry = { ...entry, status, finishedAt: new Date(Date.now()).toISOString() };
    if (note !== undefined) line.note = this.#withholdNotes ? NOTE_WITHHELD : note;
    this.entries.push(line);
  }
}
