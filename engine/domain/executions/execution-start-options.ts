// What a start asks of Temporal for one execution: its id, its input (marked
// for the codec when the flow hides its payload), the memo (the grant's run
// mark, doNotLogPayload, a keyed call's payload digest, a re-run's origin),
// the id policies that keep a keyed execution from starting twice, search
// attributes, the company's fairness key and what the Temporal UI shows.
import { createHash, randomUUID } from 'node:crypto';
import type { SearchAttributePair } from '@temporalio/common';
import type { FlowExecutionInput } from '../../../flow/index.ts';
import { DO_NOT_LOG_PAYLOAD_MEMO, markSensitive } from '../../../flow/payload-converter.ts';
import { RUN_MARK_MEMO } from './execution-grants.ts';
import { executionDetails, executionSummary, type RerunOrigin } from './execution-summary.ts';
import type { CollectorPolicy, ExecutionSeed } from '../../../flow/flow-control-contract.ts';

/** Memo key of a keyed execution's payload digest, checked when the key comes again. */
export const PAYLOAD_DIGEST_MEMO = 'idempotency';
/** Memo key naming the execution a re-run repeats (also the `RerunOf` search attribute, which a cluster may lack). */
export const RERUN_OF_MEMO = 'rerunOf';

export interface ExecutionRequest {
  input: FlowExecutionInput;
  /**
   * Set when the id comes from an Idempotency-Key: the HMAC of the payload text (webhook/idempotency.ts). An execution
   * with that id is never started again, and a call with the key but another payload is refused.
   */
  payloadDigest?: string;
  /**
   * The key comes from the payload (the flow's `idempotencyKey`): the flow's own statement of
   * identity, so a repeat joins the first execution whatever its body (a provider's redelivery with
   * another attempt counter or timestamp must never see a 4xx). An Idempotency-Key header keeps its 422.
   */
  joinsAnyBody?: boolean;
  /** The caller's Idempotency-Key, shown in the execution's details. */
  idempotencyKey?: string;
  /** The execution's id (its Temporal workflow id). */
  executionId: string;
  /** The run mark of the execution's grant (security/execution-grants.ts), kept in the memo. */
  runMark: string;
  searchAttributes?: SearchAttributePair[];
  /** Set for a re-run (engine/domain/reruns/rerun-execution.ts): the execution it repeats and the admin account that asked. */
  rerun?: RerunOrigin;
  /**
   * A keyed call that must start nothing (a provider delivery the engines remember,
   * direct/delivery-memory.ts): it joins or replays the execution `executionId` names, and is
   * refused when Temporal no longer keeps that execution.
   */
  joinOnly?: boolean;
  /** Awaited once Temporal acknowledged the start, or the execution turned out to exist already, before the call is answered. */
  onStarted?: () => Promise<void>;
  /** The flow's `priority`: Temporal's priorityKey for the execution's tasks (1 first .. 5 last). */
  priorityKey?: number;
  /** Flow control's key labels, for the summary (the FlowKey search attribute is among searchAttributes). */
  keyLabels?: string[];
  /** Debounce or batch: the call goes to this collector, which starts the execution when the call's window closes. */
  collect?: CollectRequest;
  /**
   * An Instant-return execution that waits at flow-control gates starts with this delay: it sleeps
   * in Temporal until its last gate's grant wakes it (engine/domain/flow-control/gate-entry.ts).
   */
  startDelayMs?: number;
}

/** What the engine hands a collector for one call (engine/domain/flow-control/call-collector.ts). */
export interface CollectRequest {
  collectorId: string;
  policy: CollectorPolicy;
  /** The collector's summary in the Temporal UI. */
  summary: string;
  /** The collector's memory of the call: the keyed execution id for a keyed call, otherwise a fresh one. */
  callId: string;
  keyed: boolean;
  /** The payload's HMAC, for keyed calls: the same key with another payload is refused. */
  payloadDigest?: string;
  held: boolean;
}

/** `<activity>:<uuid>`: the activity is visible in the Temporal UI's id column. */
export function newExecutionId(activity: string): string {
  return `${activity}:${randomUUID()}`;
}

/** The options of the execution's start (a plain start, or the start half of Update-With-Start). */
export function startOptions(request: ExecutionRequest, taskQueue: string) {
  // doNotLogPayload: the marked input and everything the workflow produces (it reads the memo) is encrypted by the codec.
  const hidePayload = request.input.trigger.doNotLogPayload;
  // The grant works only for the run that carries its mark (security/execution-grants.ts); not secret, never encrypted.
  const memo: Record<string, unknown> = { [RUN_MARK_MEMO]: request.runMark };
  if (hidePayload) memo[DO_NOT_LOG_PAYLOAD_MEMO] = true;
  // Even a digest says something about a payload: for doNotLogPayload flows it is encrypted too.
  if (request.payloadDigest) memo[PAYLOAD_DIGEST_MEMO] = maybeSensitive({ hmac: request.payloadDigest }, hidePayload);
  if (request.rerun) memo[RERUN_OF_MEMO] = request.rerun.of;
  return {
    taskQueue,
    workflowId: request.executionId,
    args: [maybeSensitive(request.input, hidePayload)] as [FlowExecutionInput],
    memo,
    // A keyed call whose execution exists (running or closed) must not start another: it is
    // told so, checks the payload and joins or replays (joinExisting).
    workflowIdConflictPolicy: 'FAIL' as const,
    // Only keyed ids can recur, and the reuse check costs the server a lookup (~20 ms on the dev
    // server), so fresh ids keep the default policy.
    workflowIdReusePolicy: request.payloadDigest ? ('REJECT_DUPLICATE' as const) : undefined,
    typedSearchAttributes: request.searchAttributes,
    // Task dispatch is fair between companies: one company's backlog does not hold up another's
    // executions (needs matching.enableFairness on the server; ignored where it is off); within
    // that, the flow's priority orders them. Activities inherit both from the workflow.
    priority: {
      fairnessKey: fairnessKeyOf(request.input.company),
      ...(request.priorityKey !== undefined && { priorityKey: request.priorityKey }),
    },
    // The Temporal UI's list row and header: what this execution is, without opening it.
    staticSummary: executionSummary(request.input, request.keyLabels),
    staticDetails: executionDetails(request.input, request.executionId, request.idempotencyKey, request.rerun),
    ...(request.startDelayMs !== undefined && { startDelay: request.startDelayMs }),
  };
}

/** A collected call's execution, as the collector will start it if the call opens a window: the same options as a start. */
export function executionSeed(request: ExecutionRequest, taskQueue: string): ExecutionSeed {
  const options = startOptions(request, taskQueue);
  return {
    workflowId: options.workflowId,
    executionGrant: request.input.executionGrant!,
    memo: options.memo,
    ...(options.typedSearchAttributes && { searchAttributes: options.typedSearchAttributes }),
    staticSummary: options.staticSummary,
    staticDetails: options.staticDetails,
    priority: options.priority,
    ...(request.input.control && { control: request.input.control }),
  };
}

/** Temporal's limit on a fairness key. */
const MAX_FAIRNESS_KEY_BYTES = 64;

/**
 * The company's name as Temporal's fairness key; a name longer than the key may be (names go up
 * to 250 characters) is cut and told apart from others with the same start by a digest of the whole.
 */
export function fairnessKeyOf(company: string): string {
  if (Buffer.byteLength(company, 'utf8') <= MAX_FAIRNESS_KEY_BYTES) return company;
  const digest = createHash('sha256').update(company, 'utf8').digest('base64url').slice(0, 16);
  let prefix = '';
  // Whole characters only (code points), so the key stays valid UTF-8.
  for (const character of company) {
    if (Buffer.byteLength(prefix + character, 'utf8') > MAX_FAIRNESS_KEY_BYTES - digest.length - 1) break;
    prefix += character;
  }
  return `${prefix}~${digest}`;
}

function maybeSensitive<T>(value: T, sensitive: boolean): T {
  return sensitive ? markSensitive(value) : value;
}
