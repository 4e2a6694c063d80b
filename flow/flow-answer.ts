// The result of the `flowAnswer` query (flow-messages.ts): what the flow has
// answered so far, for callers who fetch the answer after their sync window
// timed out (engine webhook/get-answer.ts). Part of the Temporal contract the
// engine and the workflow share, so it stays free of workflow-runtime imports.
import type { DefaultResponse, WebhookOutcome } from './flow-contract.ts';

/** What a respond step answered: the three fields of the envelope's `value`. */
export interface FlowResponseFields {
  statusCode: number;
  contentType: string;
  body: string;
}

export interface FlowAnswer {
  /** The execution's company and caller label, from its input: the engine authorizes a fetch by them. */
  company: string;
  caller: string;
  /** The respond step's answer — inside the window, or the first one after the window timed out; absent while none. */
  response?: FlowResponseFields;
  /** True when `response` came after the caller's window had timed out (the caller got the default response). */
  answeredAfterTimeout: boolean;
  /** How the caller's window closed; absent while it is still open. */
  outcome?: WebhookOutcome;
  /** The trigger's default response: the answer of a flow that ends without responding. */
  defaultResponse: DefaultResponse;
}
