// The records' lifetime settings, read from the environment by engine/config.ts.
//
// FLOWHOOK_RECORD_WRITE_RETENTION: how long an applied-write row (the record
// idempotency log) is kept. A row is needed while its run may still retry the
// write: the record step's retry horizon (5 attempts of at most 30 s with
// 0.5..4 s backoff, about 3 minutes) plus however long a retry waits in the
// task queue when no worker polls it, and nothing after the run closed (a run
// that reuses the workflow id has its own run id). It is a setting of its own
// rather than the Temporal namespace's retention read at start: the retention
// bounds closed runs, not how late a retry of an open one can come, and an
// engine should not need namespace-describe rights. The default, 30 days,
// exceeds common retentions (1 day on the dev server, 3 by the CLI's default)
// and any worker outage worth planning for; rows are small (a digest and a
// version, no data).
//
// FLOWHOOK_RECORD_MAX_PER_COMPANY: the most records one company may hold, all
// tables together; 0 (the default) is no quota.
import { readRetention } from '../housekeeping/retention-setting.ts';

export const WRITE_RETENTION_SETTING = 'FLOWHOOK_RECORD_WRITE_RETENTION';
export const MAX_RECORDS_SETTING = 'FLOWHOOK_RECORD_MAX_PER_COMPANY';

export const DEFAULT_WRITE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Well above the record step's retry horizon: a shorter retention could let a late retry apply its write twice. */
export const MIN_WRITE_RETENTION_MS = 60 * 60 * 1000;

export interface RecordSettings {
  /** Applied-write rows older than this are purged (record-write-purge.ts). */
  writeRetentionMs: number;
  /** 0: no quota. */
  maxRecordsPerCompany: number;
}

export const DEFAULT_RECORD_SETTINGS: RecordSettings = Object.freeze({ writeRetentionMs: DEFAULT_WRITE_RETENTION_MS, maxRecordsPerCompany: 0 });

const WRITE_RETENTION = {
  name: WRITE_RETENTION_SETTING,
  defaultMs: DEFAULT_WRITE_RETENTION_MS,
  minMs: MIN_WRITE_RETENTION_MS,
  why: "the record step's retries need their rows",
};

export function readRecordSettings(env: Record<string, string | undefined>): RecordSettings {
  return Object.freeze({ writeRetentionMs: readRetention(env, WRITE_RETENTION), maxRecordsPerCompany: maxRecords(env[MAX_RECORDS_SETTING]) });
}

function maxRecords(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${MAX_RECORDS_SETTING} must be an integer >= 0 (0: no quota), got "${raw}"`);
  return value;
}
