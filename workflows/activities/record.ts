// The record step's I/O: one call to the engine's RecordService. Business
// outcomes (missing record, duplicate key, version mismatch, bad input) are
// non-retryable failures that name the record; an engine that cannot be
// reached, or a write that lost a concurrency race, is retried by Temporal.
import { toJson, type JsonObject } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { RecordSchema, type Record as RecordMessage } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import type { RecordClient } from './engine-client.ts';

export type RecordOperation = 'get' | 'insert' | 'modify' | 'upsert' | 'delete';

export interface RecordInput {
  operation: RecordOperation;
  company: string;
  caller: string;
  table: string;
  key: string;
  data?: Record<string, unknown>;
  expectedVersion?: number;
  allowMissing?: boolean;
  /** Execution id + step path: a retried write applies once. */
  idempotencyKey: string;
  executionId?: string;
  /** The engine's grant for this execution and company (FlowExecutionInput.executionGrant). */
  executionGrant?: string;
}

export interface RecordOutput {
  found: boolean;
  table: string;
  key: string;
  data: Record<string, unknown> | null;
  version: number | null;
  /** upsert: whether the record was created. */
  created?: boolean;
}

export function createRecordActivity(client: RecordClient) {
  return async function record(input: RecordInput): Promise<RecordOutput> {
    const scope = {
      company: input.company,
      table: input.table,
      key: input.key,
      caller: input.caller,
      idempotencyKey: input.idempotencyKey,
      executionId: input.executionId ?? input.idempotencyKey.split('/')[0] ?? '',
      executionGrant: input.executionGrant ?? '',
      // Writes apply once per (run, key): a later run reusing this workflow id must not get this run's answers.
      runId: Context.current().info.workflowExecution?.runId ?? '',
    };
    const data = (input.data ?? {}) as JsonObject;
    const expectedVersion = input.expectedVersion === undefined ? undefined : BigInt(input.expectedVersion);
    try {
      switch (input.operation) {
        case 'get':
          return output((await client.getRecord({ scope })).record);
        case 'insert':
          return output((await client.insertRecord({ scope, data })).record);
        case 'modify':
          return output((await client.modifyRecord({ scope, data, expectedVersion })).record);
        case 'upsert': {
          const answer = await client.upsertRecord({ scope, data, expectedVersion });
          return { ...output(answer.record), created: answer.created };
        }
        case 'delete':
          return output((await client.deleteRecord({ scope, expectedVersion })).record);
      }
    } catch (error) {
      // Only a missing record counts as "not found" here; an unknown company is still an error.
      if (
        input.operation === 'get' &&
        input.allowMissing &&
        error instanceof ConnectError &&
        error.code === Code.NotFound &&
        error.rawMessage.startsWith('record ')
      ) {
        return { found: false, table: input.table, key: input.key, data: null, version: null };
      }
      throw asFailure(error, input);
    }
  };
}

function output(record: RecordMessage | undefined): RecordOutput {
  if (!record) throw ApplicationFailure.nonRetryable('the engine answered without a record', 'RecordFailed');
  const json = toJson(RecordSchema, record) as { data?: Record<string, unknown> };
  return { found: true, table: record.table, key: record.key, data: json.data ?? {}, version: Number(record.version) };
}

function asFailure(error: unknown, input: RecordInput): ApplicationFailure {
  if (!(error instanceof ConnectError))
    return ApplicationFailure.retryable(`record ${input.operation} failed`, 'RecordFailed');
  const message = `record ${input.operation}: ${error.rawMessage}`;
  switch (error.code) {
    case Code.Unavailable:
    case Code.DeadlineExceeded:
    case Code.Internal:
    case Code.Unknown:
      return ApplicationFailure.retryable(message, 'RecordUnavailable');
    case Code.Aborted:
      // A lost race is retried (the next attempt re-reads); a version the flow expected is its own business.
      return input.expectedVersion === undefined
        ? ApplicationFailure.retryable(message, 'RecordConflict')
        : ApplicationFailure.nonRetryable(message, 'RecordVersionMismatch');
    case Code.NotFound:
      return ApplicationFailure.nonRetryable(message, 'RecordNotFound');
    case Code.AlreadyExists:
      return ApplicationFailure.nonRetryable(message, 'RecordAlreadyExists');
    case Code.FailedPrecondition:
      // The company's record quota (FLOWHOOK_RECORD_MAX_PER_COMPANY), a reused idempotency key, or a repeat that cannot be answered: retrying changes none of them.
      return ApplicationFailure.nonRetryable(message, 'RecordRefused');
    default:
      return ApplicationFailure.nonRetryable(message, 'RecordRejected');
  }
}
