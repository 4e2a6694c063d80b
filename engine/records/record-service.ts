// The RecordService Connect implementation: the worker's record activity calls
// it with the execution's company, caller and idempotency key. One
// EntityManager fork per call.
import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { RecordSchema, type RecordScope, type RecordService } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { InvalidArgumentError } from '../errors.ts';
import { getRecord, writeRecord, type RecordAddress, type RecordSnapshot, type RecordWriteOperation, type WriteResult } from './records.ts';

export interface RecordDeps {
  orm: MikroORM;
  logger: Logger;
}

export function createRecordService(deps: RecordDeps): ServiceImpl<typeof RecordService> {
  const write = (scope: RecordScope | undefined, operation: RecordWriteOperation): Promise<WriteResult> => {
    const address = addressOf(scope);
    deps.logger.debug({ company: address.company, table: address.table, operation: operation.kind, caller: scope!.caller }, 'record write');
    return writeRecord(deps.orm.em.fork(), address, operation, scope!.idempotencyKey);
  };
  return {
    async getRecord(request) {
      return { record: message(await getRecord(deps.orm.em.fork(), addressOf(request.scope))) };
    },
    async insertRecord(request) {
      return { record: message((await write(request.scope, { kind: 'insert', data: request.data ?? {} })).record) };
    },
    async modifyRecord(request) {
      return { record: message((await write(request.scope, { kind: 'modify', data: request.data ?? {}, expectedVersion: version(request.expectedVersion) })).record) };
    },
    async upsertRecord(request) {
      const result = await write(request.scope, { kind: 'upsert', data: request.data ?? {}, expectedVersion: version(request.expectedVersion) });
      return { record: message(result.record), created: result.created };
    },
    async deleteRecord(request) {
      return { record: message((await write(request.scope, { kind: 'delete', expectedVersion: version(request.expectedVersion) })).record) };
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
