// WebhookService.GetAnswer: the answer of an execution after its call — for a
// sync call that timed out, the respond step's late answer once the flow
// reaches it. Reads come from the workflow's `flowAnswer` query (no history
// written, and through the codec, so a doNotLogPayload body is decrypted here
// only to go back to the caller who may see it; it is never logged).
//
// Long-poll: with wait_seconds the engine queries again with a growing pause
// (250 ms up to 1 s) until the flow answers, the execution closes, the wait
// ends, the caller goes away or the engine shuts down. A query per pause costs
// Temporal one worker round trip and no history, where an update that waits on
// a timer would write events into every execution fetched. Each waiting fetch
// holds one of the sync-call slots, so long-polls cannot exhaust the engine.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  QueryNotRegisteredError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { GetAnswerRequest } from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { FLOW_WORKFLOW_TYPE, type FlowAnswer, type FlowResponseFields } from '../../../flow/index.ts';
import { flowAnswerQuery } from '../../../flow/flow-messages.ts';
import { InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { temporalUnavailable } from '../../infrastructure/temporal/temporal-unavailable.ts';
import type { WebhookLimits } from '../limits/webhook-limits.ts';
import { actsForCompany, type ServiceAccountIdentity } from '../callers/service-account-tokens.ts';
import { Company } from '../../infrastructure/storage/entities.ts';
import { authenticateCaller } from '../callers/caller-authentication.ts';
import type { CallerDirectory } from '../callers/caller-directory.ts';
import { isExecutionId, MAX_ANSWER_WAIT_SECONDS, mayReadAnswer } from './answer-access.ts';
import { requireNamesWithinLimits } from './request-names.ts';
import { answerWhileWaiting, isWaitingToRun } from '../executions/waiting-to-run.ts';
import { startInput } from '../executions/execution-reads.ts';

export interface GetAnswerDeps {
  orm: MikroORM;
  callers: CallerDirectory;
  limits: WebhookLimits;
  temporal: Client;
  taskQueue: string;
  /** Aborted when the engine shuts down: a long-poll then answers with what it has. */
  stopping?: AbortSignal;
}

export type ExecutionStateName = 'running' | 'completed' | 'failed';

export interface ExecutionAnswer {
  executionId: string;
  state: ExecutionStateName;
  answer: FlowAnswer;
}

/** Why a fetch was answered NOT_FOUND, for the engine's log line only (the caller sees one message). */
export class AnswerNotFoundError extends NotFoundError {
  readonly reason: 'unknown_company' | 'unknown_execution' | 'not_permitted';

  constructor(executionId: string, reason: AnswerNotFoundError['reason']) {
    super(`No execution "${executionId}" of yours in this company`);
    this.reason = reason;
  }
}

// Each Temporal call is bounded: a query needs a worker, and none may be polling.
const TEMPORAL_CALL_MS = 5_000;
const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 1_000;

export async function getAnswer(
  deps: GetAnswerDeps,
  request: GetAnswerRequest,
  account: ServiceAccountIdentity,
  signal?: AbortSignal,
): Promise<ExecutionAnswer> {
  checkShape(request);
  const em = deps.orm.em.fork();
  const caller = await authenticateCaller(deps.callers, em, request.caller, new Date(), account);
  deps.limits.admitCaller(caller.label);
  const { executionId } = request;
  const company = await em.findOne(Company, { name: request.company });
  if (!company) throw new AnswerNotFoundError(executionId, 'unknown_company');
  if (!actsForCompany(account, company.id)) throw new AnswerNotFoundError(executionId, 'not_permitted');

  let current = await readExecution(deps, executionId);
  // The execution's own input says whose it is: that holds also where search attributes are off.
  if (current.answer.company !== company.name || !mayReadAnswer(caller, company.id, current.answer.caller)) {
    throw new AnswerNotFoundError(executionId, 'not_permitted');
  }
  if (request.waitSeconds === 0 || isSettled(current)) return current;

  const release = deps.limits.acquireSyncSlot();
  try {
    const deadline = Date.now() + request.waitSeconds * 1000;
    const stop = AbortSignal.any([signal, deps.stopping].filter((s): s is AbortSignal => s !== undefined));
    for (
      let pause = FIRST_PAUSE_MS;
      !isSettled(current) && !stop.aborted && Date.now() < deadline;
      pause = Math.min(MAX_PAUSE_MS, pause * 2)
    ) {
      const slept = await sleep(Math.min(pause, deadline - Date.now()), true, { signal: stop }).catch(() => false);
      if (!slept) break;
      current = await readExecution(deps, executionId);
    }
    return current;
  } finally {
    release();
  }
}

/**
 * The answer to hand the caller: the respond step's (in the window or late), or — once the flow
 * completed without one — the trigger's default response, the answer of a flow that ends
 * without responding. None while it runs unanswered, nor for a flow that failed first.
 */
export function answerToHand(
  execution: ExecutionAnswer,
): { response: FlowResponseFields; isDefault: boolean } | undefined {
  const { answer } = execution;
  if (answer.response) return { response: answer.response, isDefault: false };
  if (execution.state === 'completed') return { response: { ...answer.defaultResponse, body: '' }, isDefault: true };
  return undefined;
}

/** Nothing more to wait for: the flow answered, or the execution closed. */
function isSettled(execution: ExecutionAnswer): boolean {
  return execution.answer.response !== undefined || execution.state !== 'running';
}

function checkShape(request: GetAnswerRequest): void {
  if (!request.company) throw new InvalidArgumentError('company is required');
  requireNamesWithinLimits({ company: request.company });
  if (!isExecutionId(request.executionId)) {
    throw new InvalidArgumentError(
      'executionId must be an execution id as the call returned it in x-flowhook-execution-id (<activity>:<uuid>, <activity>:key-… or <activity>:rerun-<uuid>)',
    );
  }
  const wait = request.waitSeconds;
  if (!Number.isInteger(wait) || wait < 0 || wait > MAX_ANSWER_WAIT_SECONDS)
    throw new InvalidArgumentError(`wait must be between 0 and ${MAX_ANSWER_WAIT_SECONDS} seconds`);
}

async function readExecution(deps: GetAnswerDeps, executionId: string): Promise<ExecutionAnswer> {
  const { temporal } = deps;
  const handle = temporal.workflow.getHandle(executionId);
  let description: WorkflowExecutionDescription;
  try {
    description = await temporal.connection.withDeadline(Date.now() + TEMPORAL_CALL_MS, () => handle.describe());
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new AnswerNotFoundError(executionId, 'unknown_execution');
    throw temporalUnavailable(error);
  }
  // Other workflows may share the namespace: only flow executions of this deployment's queue are answered.
  if (description.type !== FLOW_WORKFLOW_TYPE || description.taskQueue !== deps.taskQueue)
    throw new AnswerNotFoundError(executionId, 'unknown_execution');
  let answer: FlowAnswer;
  try {
    answer = await temporal.connection.withDeadline(Date.now() + TEMPORAL_CALL_MS, () => handle.query(flowAnswerQuery));
  } catch (error) {
    // Still waiting at its flow-control gates: what it answered is in its input.
    if (isWaitingToRun(error)) {
      const input = await temporal.connection
        .withDeadline(Date.now() + TEMPORAL_CALL_MS, () => startInput(temporal, executionId, description.runId))
        .catch((cause: unknown) => {
          throw temporalUnavailable(cause);
        });
      if (!input) throw new AnswerNotFoundError(executionId, 'unknown_execution');
      return { executionId, state: 'running', answer: answerWhileWaiting(input) };
    }
    // Started by a release without the query: it has no late answer to give, and no caller to authorize by.
    if (error instanceof QueryNotRegisteredError) throw new AnswerNotFoundError(executionId, 'unknown_execution');
    if (error instanceof WorkflowNotFoundError) throw new AnswerNotFoundError(executionId, 'unknown_execution');
    throw temporalUnavailable(error);
  }
  return { executionId, state: stateOf(description), answer };
}

function stateOf(description: WorkflowExecutionDescription): ExecutionStateName {
  const status = description.status.name;
  if (status === 'RUNNING') return 'running';
  return status === 'COMPLETED' ? 'completed' : 'failed';
}
