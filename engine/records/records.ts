// Company-scoped records: the storage behind the record step. Each write runs
// in one transaction with its entry in record_write, so a retried activity
// (same idempotency key) gets the first answer back and applies nothing twice.
import { randomUUID } from 'node:crypto';
import { OptimisticLockError, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AlreadyExistsError, ConflictError, InvalidArgumentError, NotFoundError } from '../errors.ts';
import { requireCompany } from '../admin/companies.ts';
import { FlowRecord, RecordWrite, type Company } from '../storage/entities.ts';

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

export async function writeRecord(em: EntityManager, address: RecordAddress, operation: RecordWriteOperation, idempotencyKey: string): Promise<WriteResult> {
  checkAddress(address);
  if (idempotencyKey === '' || idempotencyKey.length > 600) throw new InvalidArgumentError('idempotency key: required, at most 600 characters');
  try {
    return await em.transactional(async (tx) => {
      const company = await requireCompany(tx, address.company);
      const earlier = await tx.findOne(RecordWrite, { company, idempotencyKey });
      if (earlier) return earlier.response as unknown as WriteResult;
      const result = await apply(tx, company, address, operation);
      tx.create(RecordWrite, { id: randomUUID(), company, idempotencyKey, response: result as unknown as Record<string, unknown>, createdAt: new Date() });
      await tx.flush();
      return result;
    });
  } catch (error) {
    if (error instanceof OptimisticLockError) throw new ConflictError(`${describe(address)} was changed by another write; retry`);
    if (error instanceof UniqueConstraintViolationException) throw new AlreadyExistsError(`${describe(address)} already exists`);
    throw error;
  }
}

async function apply(em: EntityManager, company: Company, address: RecordAddress, operation: RecordWriteOperation): Promise<WriteResult> {
  const now = new Date();
  const existing = await em.findOne(FlowRecord, { company, tableName: address.table, key: address.key });
  if (operation.kind !== 'insert' && existing && operation.expectedVersion !== undefined && existing.version !== operation.expectedVersion) {
    throw new ConflictError(`${describe(address)} has version ${existing.version}, expected ${operation.expectedVersion}`);
  }
  switch (operation.kind) {
    case 'insert': {
      if (existing) throw new AlreadyExistsError(`${describe(address)} already exists`);
      return { record: snapshot(await create(em, company, address, operation.data, now)), created: true };
    }
    case 'upsert':
    case 'modify': {
      if (!existing) {
        if (operation.kind === 'modify' || operation.expectedVersion !== undefined) throw new NotFoundError(`${describe(address)} does not exist`);
        return { record: snapshot(await create(em, company, address, operation.data, now)), created: true };
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

async function create(em: EntityManager, company: Company, address: RecordAddress, data: Record<string, unknown>, now: Date): Promise<FlowRecord> {
  const record = em.create(FlowRecord, { id: randomUUID(), company, tableName: address.table, key: address.key, data, createdAt: now, updatedAt: now });
  await em.flush();
  return record;
}

async function requireRecord(em: EntityManager, company: Company, address: RecordAddress): Promise<FlowRecord> {
  const record = await em.findOne(FlowRecord, { company, tableName: address.table, key: address.key });
  if (!record) throw new NotFoundError(`${describe(address)} does not exist`);
  return record;
}

function checkAddress(address: RecordAddress): void {
  if (!TABLE_NAME.test(address.table)) throw new InvalidArgumentError(`table "${address.table}": 1..100 letters, digits, _, - or .`);
  if (address.key === '' || address.key.length > 250) throw new InvalidArgumentError(`key of table "${address.table}": 1..250 characters`);
}

function describe(address: RecordAddress): string {
  return `record "${address.key}" of table "${address.table}"`;
}

function snapshot(record: FlowRecord): RecordSnapshot {
  return {
    table: record.tableName,
    key: record.key,
    data: record.data,
    version: record.version,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
