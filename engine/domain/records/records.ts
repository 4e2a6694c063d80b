// Company-scoped records: the storage behind the record step. Each write runs
// in one transaction with its entry in record_write, so a retried activity
// (same run and idempotency key) gets the first answer back and applies
// nothing twice. That entry keeps a digest and the resulting version, never
// the data (repeated-write.ts rebuilds the answer), and is purged by age
// (record-write-purge.ts).
import { randomUUID } from 'node:crypto';
import { LockMode, OptimisticLockError, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  AlreadyExistsError,
  ConflictError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
} from '../../errors.ts';
import { requireCompany } from '../companies/companies.ts';
import { FlowRecord, RecordWrite, type Company } from '../../infrastructure/storage/entities.ts';
import { repeatedWriteAnswer } from './repeated-write.ts';
import { writeDigest } from './write-digest.ts';
import { MAX_RECORDS_SETTING, type RecordSettings } from './record-settings.ts';

export interface RecordAddress {
  company: string;
  table: string;
  key: string;
}

export interface RecordSnapshot {
  table: string;
  key: string;
  data: Record<string, unknown>;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface WriteResult {
  record: RecordSnapshot;
  created: boolean;
}

export type RecordWriteOperation =
  | { kind: 'insert'; data: Record<string, unknown> }
  | { kind: 'modify'; data: Record<string, unknown>; expectedVersion?: number }
  | { kind: 'upsert'; data: Record<string, unknown>; expectedVersion?: number }
  | { kind: 'delete'; expectedVersion?: number };

const TABLE_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export async function getRecord(em: EntityManager, address: RecordAddress): Promise<RecordSnapshot> {
  checkAddress(address);
  const company = await requireCompany(em, address.company);
  return snapshot(await requireRecord(em, company, address));
}

/** Who asks for a write: the Temporal run ('' outside an execution) and its idempotency key (execution id + step path). */
export interface WriteIdentity {
  runId: string;
  idempotencyKey: string;
}

export async function writeRecord(
  em: EntityManager,
  address: RecordAddress,
  operation: RecordWriteOperation,
  identity: WriteIdentity,
  settings: RecordSettings,
): Promise<WriteResult> {
  checkAddress(address);
  const { runId, idempotencyKey } = identity;
  if (idempotencyKey === '' || idempotencyKey.length > 600)
    throw new InvalidArgumentError('idempotency key: required, at most 600 characters');
  if (runId.length > 100) throw new InvalidArgumentError('run id: at most 100 characters');
  const requestDigest = writeDigest(address, operation);
  try {
    return await em.transactional(async (tx) => {
      const company = await requireCompany(tx, address.company);
      const earlier = await tx.findOne(RecordWrite, { company, runId, idempotencyKey });
      if (earlier) {
        // Rows from before migration 0011 have no digest: they answer as before, unchecked.
        if (earlier.requestDigest !== '' && earlier.requestDigest !== requestDigest) {
          throw new FailedPreconditionError(
            `idempotency key "${idempotencyKey}" was already used for another write; a retry must repeat the same write`,
          );
        }
        return repeatedWriteAnswer(
          earlier,
          await tx.findOne(FlowRecord, { company, tableName: address.table, key: address.key }),
          address,
          snapshot,
        );
      }
      const result = await apply(tx, company, address, operation, settings);
      tx.create(RecordWrite, {
        id: randomUUID(),
        company,
        runId,
        idempotencyKey,
        operation: operation.kind,
        requestDigest,
        version: result.record.version,
        created: result.created,
        createdAt: new Date(),
      });
      await tx.flush();
      return result;
    });
  } catch (error) {
    if (error instanceof OptimisticLockError)
      throw new ConflictError(`${describe(address)} was changed by another write; retry`);
    if (error instanceof UniqueConstraintViolationException)
      throw new AlreadyExistsError(`${describe(address)} already exists`);
    throw error;
  }
}

async function apply(
  em: EntityManager,
  company: Company,
  address: RecordAddress,
  operation: RecordWriteOperation,
  settings: RecordSettings,
): Promise<WriteResult> {
  const now = new Date();
  const existing = await em.findOne(FlowRecord, { company, tableName: address.table, key: address.key });
  if (
    operation.kind !== 'insert' &&
    existing &&
    operation.expectedVersion !== undefined &&
    existing.version !== operation.expectedVersion
  ) {
    throw new ConflictError(
      `${describe(address)} has version ${existing.version}, expected ${operation.expectedVersion}`,
    );
  }
  switch (operation.kind) {
    case 'insert': {
      if (existing) throw new AlreadyExistsError(`${describe(address)} already exists`);
      return { record: snapshot(await create(em, company, address, operation.data, now, settings)), created: true };
    }
    case 'upsert':
    case 'modify': {
      if (!existing) {
        if (operation.kind === 'modify' || operation.expectedVersion !== undefined)
          throw new NotFoundError(`${describe(address)} does not exist`);
        return { record: snapshot(await create(em, company, address, operation.data, now, settings)), created: true };
      }
      existing.data = { ...existing.data, ...operation.data };
      existing.updatedAt = now;
      await em.flush();
      return { record: snapshot(existing), created: false };
    }
    case 'delete': {
      if (!existing) throw new NotFoundError(`${describe(address)} does not exist`);
      const before = snapshot(existing);
      em.remove(existing);
      await em.flush();
      return { record: before, created: false };
    }
  }
}

async function create(
  em: EntityManager,
  company: Company,
  address: RecordAddress,
  data: Record<string, unknown>,
  now: Date,
  settings: RecordSettings,
): Promise<FlowRecord> {
  if (settings.maxRecordsPerCompany > 0) await requireRoomFor(em, company, settings.maxRecordsPerCompany);
  const record = em.create(FlowRecord, {
    id: randomUUID(),
    company,
    tableName: address.table,
    key: address.key,
    data,
    createdAt: now,
    updatedAt: now,
  });
  await em.flush();
  return record;
}

/**
 * The per-company quota. Creations of one company are serialized by a lock on
 * its row (only while a quota is set), so two racing inserts cannot both take
 * the last place; the lock ends with the write's transaction.
 */
async function requireRoomFor(em: EntityManager, company: Company, max: number): Promise<void> {
  await em.lock(company, LockMode.PESSIMISTIC_WRITE);
  const count = await em.count(FlowRecord, { company });
  if (count >= max) {
    throw new FailedPreconditionError(
      `company "${company.name}" holds ${count} records, the most ${MAX_RECORDS_SETTING} (${max}) allows: delete records or raise ${MAX_RECORDS_SETTING}`,
    );
  }
}

async function requireRecord(em: EntityManager, company: Company, address: RecordAddress): Promise<FlowRecord> {
  const record = await em.findOne(FlowRecord, { company, tableName: address.table, key: address.key });
  if (!record) throw new NotFoundError(`${describe(address)} does not exist`);
  return record;
}

function checkAddress(address: RecordAddress): void {
  if (!TABLE_NAME.test(address.table))
    throw new InvalidArgumentError(`table "${address.table}": 1..100 letters, digits, _, - or .`);
  if (address.key === '' || address.key.length > 250)
    throw new InvalidArgumentError(`key of table "${address.table}": 1..250 characters`);
}

function describe(address: RecordAddress): string {
  return `record "${address.key}" of table "${address.table}"`;
}

/** A stored record as the RPCs answer it (also what repeated-write.ts is handed). */
export function snapshot(record: FlowRecord): RecordSnapshot {
  return {
    table: record.tableName,
    key: record.key,
    data: record.data,
    version: record.version,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
