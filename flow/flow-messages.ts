// The flow workflow's messages, each defined once with its name, arguments and
// result: the workflow registers its handlers with these definitions and the
// engine sends with them, so both sides agree on the types as well as the names.
// The names are on the wire (in running executions and recorded histories):
// renaming one breaks executions started before the rename.
//
// Not re-exported by ./index.ts: the define functions come from the workflow
// SDK, which the engine's flow validation must not load. The engine imports
// this module by its path.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { CallbackAccepted, CallbackDelivery } from './callback-contract.ts';
import type { FlowAnswer } from './flow-answer.ts';
import type { StepLogEntry, WebhookResponse } from './flow-contract.ts';

/**
 * Sync mode: the engine waits on it (Update-With-Start). It returns when a respond step answers,
 * the flow ends or fails, or the sync window times out.
 */
export const webhookResponseUpdate = defineUpdate<WebhookResponse, []>('webhookResponse');

/**
 * A callback for a waitForCallback step, sent by the engine (callbacks/deliver-to-wait.ts).
 * Its validator refuses with the CALLBACK_* failure types of callback-contract.ts.
 */
export const callbackUpdate = defineUpdate<CallbackAccepted, [CallbackDelivery]>('flowhookCallback');

/** The execution log, for `flowhook execution show`. */
export const executionLogQuery = defineQuery<StepLogEntry[], []>('executionLog');

/**
 * What named steps put out so far (`Steps.<name>` of SmartFields), for the
 * console's execution page. The engine withholds it for doNotLogPayload flows
 * unless the person may decrypt.
 */
export const stepOutputsQuery = defineQuery<Record<string, unknown>, []>('stepOutputs');

/** The caller's answer, also after the execution closed (a retried call with the same idempotency key). */
export const webhookAnswerQuery = defineQuery<WebhookResponse, []>('webhookAnswer');

/**
 * What the flow has answered so far, also after a sync timeout: a caller fetches it later
 * (engine webhook/get-answer.ts). A query adds no history.
 */
export const flowAnswerQuery = defineQuery<FlowAnswer, []>('flowAnswer');
