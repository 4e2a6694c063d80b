// What a record write asked for, as a SHA-256 digest: the applied-write log
// keeps this instead of the data, so a retried write can be told apart from a
// different write that reuses its idempotency key, without a second copy of
// the company's data outliving the record. Field order does not matter (a
// Struct's keys arrive in any order); everything else does.
import { createHash } from 'node:crypto';
import type { RecordAddress, RecordWriteOperation } from './records.ts';

export function writeDigest(address: RecordAddress, operation: RecordWriteOperation): string {
  const request = {
    kind: operation.kind,
    table: address.table,
    key: address.key,
    data: operation.kind === 'delete' ? null : operation.data,
    expectedVersion: operation.kind === 'insert' ? null : (operation.expectedVersion ?? null),
  };
  return createHash('sha256').update(canonical(request)).digest('hex');
}

/** JSON with object keys sorted at every depth. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, member]) => `${JSON.stringify(name)}:${canonical(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
