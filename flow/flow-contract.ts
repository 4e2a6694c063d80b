// What the engine and the worker agree on: the workflow's name and signature,
// its input and output (its updates and queries are in flow-messages.ts; the
// task queue both use is a setting, FLOWHOOK_TASK_QUEUE). Imported by the engine, so it must stay free of
// workflow-runtime imports.
import type { StepJson } from '../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { FlowLimits } from '../common/flow-limits.ts';
import type { ExecutionControl } from './execution-gates.ts';

/** The workflow's type: the name workflows/index.ts exports it under (the worker registers it by that name). */
export const FLOW_WORKFLOW_TYPE = 'flowWorkflow';

export type ResponseMode = 'INSTANT_RETURN' | 'WAIT_FOR_RESPONSE_STEP';

export interface DefaultResponse {
  statusCode: number;
  contentType: string;
}

/** Everything an execution needs, fixed when it starts (the published version of that moment). */
export interface FlowExecutionInput {
  company: string;
  flowName: string;
  flowVersion: number;
  steps: StepJson[];
  trigger: {
    activity: string;
    description: string;
    responseMode: ResponseMode;
    syncTimeoutMs: number;
    defaultResponse: DefaultResponse;
    doNotLogPayload: boolean;
  };
  /**
   * The `payload` member's text exactly as the caller sent it. On the provider
   * route: the request body as text (`direct.bodyEncoding` says which kind).
   */
  payloadJson: string;
  /** Set for executions the provider route started; absent for the OData route and executions started before it existed. */
  direct?: DirectTriggerRequest;
  /** Who called, e.g. `user:flowhook-service`. Never a credential. */
  caller: string;
  /** The engine's bounds when the execution started; absent in executions started before they existed. */
  limits?: FlowLimits;
  /**
   * The engine's HMAC over this execution's id and company: RecordService and
   * OutboundService accept the worker's calls for this company only with it.
   * Useless without a records-scope token; absent in executions started before it existed.
   */
  executionGrant?: string;
  /** Flow control: the gates the execution passes before its steps run (flow-control-contract.ts). Absent: none. */
  control?: ExecutionControl;
  /** Debounce: how many calls the execution stands for and their payload texts (Trigger.Coalesced). */
  coalesced?: { count: number; payloads: string[] };
  /** Batch: the calls collected into the execution (Trigger.Batch). */
  batch?: { payload: string; caller: string; receivedAt: string }[];
  /**
   * Set by every engine since payload values are exact (flow/trigger-outputs.ts): the
   * execution needs no Temporal patch to know it, which cost each one a marker and a search
   * attribute update. Absent in executions started before; they ask the patch, as they did.
   */
  exactValues?: true;
}

/**
 * A provider's request as the flow may see it (engine/domain/webhook/invoke-direct.ts
 * builds it after verification). The body itself is `payloadJson`, so it is
 * stored once: UTF-8 text when the bytes are valid UTF-8, else base64 of the
 * bytes. Signature, timestamp, authorization and cookie headers are never here.
 */
export interface DirectTriggerRequest {
  method: string;
  /** Lower-cased names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** The query string as received, without "?". */
  query: string;
  /** The media type from Content-Type, lower-cased, without parameters; "" when none was sent. */
  contentType: string;
  /** How `payloadJson` holds the body: "text" (the exact UTF-8 text) or "base64" (bytes that are not UTF-8). */
  bodyEncoding: 'text' | 'base64';
  /** The verified scheme (e.g. `stripe`) and the provider's event id, when the scheme has one. */
  provider: { scheme: string; eventId?: string };
}

/** Why the caller got the answer it got; mirrors InvokeOutcome of the engine proto. */
export type WebhookOutcome = 'RESPONDED' | 'SYNC_TIMEOUT' | 'FLOW_ENDED' | 'INSTANT_RETURN';

/** The answer of the `webhookResponse` update (flow-messages.ts). */
export interface WebhookResponse {
  statusCode: number;
  contentType: string;
  body: string;
  defaultResponse: boolean;
  outcome: WebhookOutcome;
}

/** Failure types the update can fail with; the engine turns both into a 500 for the caller. */
export const DEFERRAL_BEFORE_RESPONSE = 'DeferralBeforeResponse';
export const FLOW_FAILED_BEFORE_RESPONSE = 'FlowFailedBeforeResponse';

export type StepStatus = 'completed' | 'skipped' | 'failed';

/** One line of the execution log. */
export interface StepLogEntry {
  path: string;
  type: string;
  name: string;
  description: string;
  status: StepStatus;
  startedAt: string;
  finishedAt: string;
  note?: string;
}

/**
 * The workflow's signature, so the engine starts it with typed arguments and result without
 * importing workflow code (test/unit/temporal-contract.test.ts holds the workflow to it).
 */
export type FlowWorkflow = (input: FlowExecutionInput) => Promise<FlowExecutionResult>;

export interface FlowExecutionResult {
  outcome: WebhookOutcome;
  /** What the caller was answered; a retried call with the same idempotency key gets it again. */
  response: WebhookResponse;
  steps: StepLogEntry[];
}
