// The RecordService Connect implementation: the worker's record activity calls
// it with the execution's company, caller, run id, idempotency key and grant.
// One EntityManager fork per call.
import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import {
  RecordSchema,
  type RecordScope,
  type RecordService,
} from '../../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { InvalidArgumentError } from '../../errors.ts';
import { requireExecutionAccess } from '../../domain/executions/execution-access.ts';
import type { ExecutionLiveness } from '../../domain/executions/execution-liveness.ts';
import { serviceAccountOf } from '../../domain/callers/call-context.ts';
import {
  getRecord,
  writeRecord,
  type RecordAddress,
  type RecordSnapshot,
  type RecordWriteOperation,
  type WriteResult,
} from '../../domain/records/records.ts';
import { DEFAULT_RECORD_SETTINGS, type RecordSettings } from '../../domain/records/record-settings.ts';

export interface RecordDeps {
  orm: MikroORM;
  logger: Logger;
  /** Verifies the execution grants workers send (security/execution-grants.ts). */
  grantKey: Buffer;
  /** A grant works only while its execution runs (security/execution-liveness.ts). */
  liveness: ExecutionLiveness;
  /** FLOWHOOK_RECORD_* (record-settings.ts); the quota is off without them. */
  records?: RecordSettings;
}

export function createRecordService(deps: RecordDeps): ServiceImpl<typeof RecordService> {
  /** Every call first proves it may touch the company (security/execution-access.ts). */
  const admitted = async (scope: RecordScope | undefined, context: HandlerContext) => {
    const address = addressOf(scope);
    const em = deps.orm.em.fork();
    await requireExecutionAccess(em, deps, serviceAccountOf(context), {
      company: address.company,
      executionId: scope!.executionId,
      grant: scope!.executionGrant,
    });
    return { em, address };
  };
  const write = async (
    scope: RecordScope | undefined,
    context: HandlerContext,
    operation: RecordWriteOperation,
  ): Promise<WriteResult> => {
    const { em, address } = await admitted(scope, context);
    deps.logger.debug(
      { company: address.company, table: address.table, operation: operation.kind, caller: scope!.caller },
      'record write',
    );
    return writeRecord(
      em,
      address,
      operation,
      { runId: scope!.runId, idempotencyKey: scope!.idempotencyKey },
      deps.records ?? DEFAULT_RECORD_SETTINGS,
    );
  };
  return {
    async getRecord(request, context) {
      const { em, address } = await admitted(request.scope, context);
      return { record: message(await getRecord(em, address)) };
    },
    async insertRecord(request, context) {
      return {
        record: message((await write(request.scope, context, { kind: 'insert', data: request.data ?? {} })).record),
      };
    },
    async modifyRecord(request, context) {
      return {
        record: message(
          (
            await write(request.scope, context, {
              kind: 'modify',
              data: request.data ?? {},
              expectedVersion: version(request.expectedVersion),
            })
          ).record,
        ),
      };
    },
    async upsertRecord(request, context) {
      const result = await write(request.scope, context, {
        kind: 'upsert',
        data: request.data ?? {},
        expectedVersion: version(request.expectedVersion),
      });
      return { record: message(result.record), created: result.created };
    },
    async deleteRecord(request, context) {
      return {
        record: message(
          (await write(request.scope, context, { kind: 'delete', expectedVersion: version(request.expectedVersion) }))
            .record,
        ),
      };
    },
  };
}

function addressOf(scope: RecordScope | undefined): RecordAddress {
  if (!scope) throw new InvalidArgumentError('scope is required');
  return { company: scope.company, table: scope.table, key: scope.key };
}

function version(value: bigint | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

function message(record: RecordSnapshot) {
  return create(RecordSchema, {
    table: record.table,
    key: record.key,
    data: record.data as JsonObject,
    version: BigInt(record.version),
    createdAt: timestampFromDate(new Date(record.createdAt)),
    updatedAt: timestampFromDate(new Date(record.updatedAt)),
  });
}
