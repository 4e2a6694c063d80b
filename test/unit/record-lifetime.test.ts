// The pure parts of "record data has a lifetime": the request digest the
// applied-write log keeps instead of the data, the answer a retried write is
// rebuilt from, and the settings (engine/domain/records/).
import test from 'ava';
import { writeDigest } from '../../engine/domain/records/write-digest.ts';
import { repeatedWriteAnswer } from '../../engine/domain/records/repeated-write.ts';
import {
  DEFAULT_WRITE_RETENTION_MS,
  readRecordSettings as recordSettingsOf,
} from '../../engine/domain/records/record-settings.ts';
import { readSettings } from '../../common/configuration/read-settings.ts';
import type { FlowRecord, RecordWrite } from '../../engine/infrastructure/storage/entities.ts';
import { snapshot } from '../../engine/domain/records/records.ts';

const address = { company: 'Acme', table: 'invoice', key: 'INV-1' };

test('the digest ignores field order and tells every other difference apart', (t) => {
  const base = writeDigest(address, { kind: 'modify', data: { a: 1, b: { c: [1, 2], d: 'x' } } });
  t.regex(base, /^[0-9a-f]{64}$/);
  t.is(writeDigest(address, { kind: 'modify', data: { b: { d: 'x', c: [1, 2] }, a: 1 } }), base);
  const others = [
    writeDigest(address, { kind: 'upsert', data: { a: 1, b: { c: [1, 2], d: 'x' } } }),
    writeDigest(address, { kind: 'modify', data: { a: 1, b: { c: [2, 1], d: 'x' } } }),
    writeDigest(address, { kind: 'modify', data: { a: '1', b: { c: [1, 2], d: 'x' } } }),
    writeDigest(address, { kind: 'modify', data: { a: 1, b: { c: [1, 2], d: 'x' } }, expectedVersion: 3 }),
    writeDigest({ ...address, key: 'INV-2' }, { kind: 'modify', data: { a: 1, b: { c: [1, 2], d: 'x' } } }),
    writeDigest({ ...address, table: 'order' }, { kind: 'modify', data: { a: 1, b: { c: [1, 2], d: 'x' } } }),
  ];
  t.is(new Set([base, ...others]).size, others.length + 1);
  // The digest never contains the data it covers.
  t.false(writeDigest(address, { kind: 'insert', data: { secretish: 'visible-value' } }).includes('visible'));
});

const written = (operation: string, version: number, created = false) =>
  ({ operation, version, created, createdAt: new Date('2026-11-23T10:00:00.000Z') }) as unknown as RecordWrite;
const stored = (version: number, data: Record<string, unknown>) =>
  ({
    tableName: 'invoice',
    key: 'INV-1',
    data,
    version,
    createdAt: new Date('2026-11-23T09:00:00.000Z'),
    updatedAt: new Date('2026-11-23T10:00:00.000Z'),
  }) as unknown as FlowRecord;

test('a repeated write re-reads the record: unchanged, the first answer; changed since, the record as it is now', (t) => {
  t.deepEqual(repeatedWriteAnswer(written('upsert', 1, true), stored(1, { n: 1 }), address, snapshot), {
    record: snapshot(stored(1, { n: 1 })),
    created: true,
  });
  t.like(repeatedWriteAnswer(written('modify', 2), stored(4, { n: 4 }), address, snapshot), {
    record: { version: 4, data: { n: 4 } },
    created: false,
  });
});

test('a repeated delete answers the version it deleted and no data; a write whose record is gone since is refused', (t) => {
  const answer = repeatedWriteAnswer(written('delete', 3), null, address, snapshot);
  t.deepEqual(answer.record, {
    table: 'invoice',
    key: 'INV-1',
    data: {},
    version: 3,
    createdAt: '2026-11-23T10:00:00.000Z',
    updatedAt: '2026-11-23T10:00:00.000Z',
  });
  t.like(repeatedWriteAnswer(written('unknown', 3), null, address, snapshot), { record: { version: 3, data: {} } });
  const error = t.throws(() => repeatedWriteAnswer(written('modify', 2), null, address, snapshot));
  t.is(error?.name, 'FailedPreconditionError');
  t.regex(
    error!.message,
    /record "INV-1" of table "invoice": this modify was applied once, but the record was deleted/,
  );
});

test('settings: 30 days of idempotency rows and no quota by default; wrong values name the variable', (t) => {
  const readRecordSettings = (env: Record<string, string>) => recordSettingsOf(readSettings(env, 'engine'));
  t.deepEqual(readRecordSettings({}), { writeRetentionMs: DEFAULT_WRITE_RETENTION_MS, maxRecordsPerCompany: 0 });
  t.is(DEFAULT_WRITE_RETENTION_MS, 30 * 86_400_000);
  t.deepEqual(readRecordSettings({ FLOWHOOK_RECORD_WRITE_RETENTION: '2d', FLOWHOOK_RECORD_MAX_PER_COMPANY: '10000' }), {
    writeRetentionMs: 2 * 86_400_000,
    maxRecordsPerCompany: 10_000,
  });
  t.throws(() => readRecordSettings({ FLOWHOOK_RECORD_WRITE_RETENTION: '10m' }), {
    message: /FLOWHOOK_RECORD_WRITE_RETENTION must be a duration of at least 1h/,
  });
  t.throws(() => readRecordSettings({ FLOWHOOK_RECORD_WRITE_RETENTION: 'soon' }), {
    message: /FLOWHOOK_RECORD_WRITE_RETENTION/,
  });
  t.throws(() => readRecordSettings({ FLOWHOOK_RECORD_MAX_PER_COMPANY: '-1' }), {
    message: /FLOWHOOK_RECORD_MAX_PER_COMPANY must be an integer >= 0/,
  });
  t.throws(() => readRecordSettings({ FLOWHOOK_RECORD_MAX_PER_COMPANY: '1.5' }), {
    message: /FLOWHOOK_RECORD_MAX_PER_COMPANY/,
  });
});
