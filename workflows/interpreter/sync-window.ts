// The synchronous response window of one execution: a sync caller waits until a
// respond step answers, the sync timeout fires or the flow ends.
// The main flow closes it by responding, ending or failing; the update
// handler closes it by timing out. Whatever closed it first decides the answer
// every `webhookResponse` update gets, so a repeated update sees the same one.
// A respond step after a timeout cannot reach that caller any more; its answer
// is kept as the late answer, which the caller may fetch (the `flowAnswer` query).
import { ApplicationFailure } from '@temporalio/workflow';
import type {
  DefaultResponse,
  FlowAnswer,
  FlowResponseFields,
  ResponseMode,
  WebhookOutcome,
  WebhookResponse,
} from '../../flow/index.ts';
import type { FlowOutcomeLabel } from '../../flow/search-attribute-keys.ts';
import type { StepWindow } from '../steps/flow-runtime.ts';

type WindowState = 'open' | 'responded' | 'timed-out' | 'ended' | 'failed' | 'instant';

export interface WindowFailure {
  type: string;
  message: string;
}

export class SyncWindow implements StepWindow {
  #state: WindowState;
  #response: WebhookResponse | undefined;
  #failure: WindowFailure | undefined;
  #lateResponse: FlowResponseFields | undefined;
  readonly #defaults: DefaultResponse;
  readonly #deadline: number;

  constructor(mode: ResponseMode, defaults: DefaultResponse, deadline: number) {
    this.#state = mode === 'WAIT_FOR_RESPONSE_STEP' ? 'open' : 'instant';
    this.#defaults = defaults;
    this.#deadline = deadline;
  }

  /** Open while a caller may still be waiting: sync mode, nothing decided, deadline not passed. */
  get isOpen(): boolean {
    return this.#state === 'open' && Date.now() < this.#deadline;
  }

  get deadline(): number {
    return this.#deadline;
  }

  get isSync(): boolean {
    return this.#state !== 'instant';
  }

  respond(statusCode: number, contentType: string, body: string): void {
    if (this.#state !== 'open') return;
    this.#state = 'responded';
    this.#response = { statusCode, contentType, body, defaultResponse: false, outcome: 'RESPONDED' };
  }

  /**
   * A respond step reached after the window timed out: the caller already has the default
   * response, so this answer is kept for a later fetch. Only the first counts, as inside the
   * window. Returns whether it was kept.
   */
  respondAfterTimeout(statusCode: number, contentType: string, body: string): boolean {
    // Past the deadline the handler's timer may not have fired yet: the window has timed out all the same.
    if (this.#state === 'open' && Date.now() >= this.#deadline) this.#state = 'timed-out';
    if (this.#state !== 'timed-out' || this.#lateResponse) return false;
    this.#lateResponse = { statusCode, contentType, body };
    return true;
  }

  timeOut(): void {
    if (this.#state === 'open') this.#state = 'timed-out';
  }

  end(): void {
    if (this.#state === 'open') this.#state = 'ended';
  }

  fail(failure: WindowFailure): void {
    if (this.#state !== 'open') return;
    this.#state = 'failed';
    this.#failure = failure;
  }

  /** For the FlowOutcome search attribute: undefined while the window is still open. */
  get outcomeLabel(): FlowOutcomeLabel | undefined {
    if (this.isOpen) return undefined;
    switch (this.#state) {
      case 'responded':
        return 'responded';
      case 'ended':
        return 'flow ended';
      case 'failed':
        return 'failed';
      case 'instant':
        return 'instant';
      default:
        return 'sync timeout';
    }
  }

  get outcome(): WebhookOutcome {
    switch (this.#state) {
      case 'responded':
        return 'RESPONDED';
      case 'ended':
      case 'failed':
        return 'FLOW_ENDED';
      case 'instant':
        return 'INSTANT_RETURN';
      default:
        return 'SYNC_TIMEOUT';
    }
  }

  /** What the flow has answered so far, for the `flowAnswer` query (company and caller are the workflow's to add). */
  flowAnswer(): Omit<FlowAnswer, 'company' | 'caller'> {
    const answered = this.#response ?? this.#lateResponse;
    return {
      response: answered && { statusCode: answered.statusCode, contentType: answered.contentType, body: answered.body },
      answeredAfterTimeout: this.#lateResponse !== undefined,
      outcome: this.isOpen ? undefined : this.outcome,
      defaultResponse: { statusCode: this.#defaults.statusCode, contentType: this.#defaults.contentType },
    };
  }

  /** The caller's answer; a flow that failed inside the window fails the update instead. */
  answer(): WebhookResponse {
    if (this.#state === 'failed' && this.#failure) {
      throw ApplicationFailure.create({ type: this.#failure.type, message: this.#failure.message, nonRetryable: true });
    }
    if (this.#response) return this.#response;
    return { ...this.#defaults, body: '', defaultResponse: true, outcome: this.outcome };
  }
}
