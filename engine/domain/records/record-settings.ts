// The records' lifetime settings (FLOWHOOK_RECORD_WRITE_RETENTION, FLOWHOOK_RECORD_MAX_PER_COMPANY),
// read with the rest of the engine's configuration.
//
// The write retention is how long an applied-write row (the record idempotency log) is kept. A
// row is needed while its run may still retry the write: the record step's retry horizon (5
// attempts of at most 30 s with 0.5..4 s backoff, about 3 minutes) plus however long a retry waits
// in the task queue when no worker polls it, and nothing after the run closed (a run that reuses
// the workflow id has its own run id). It is a setting of its own rather than the Temporal
// namespace's retention read at start: the retention bounds closed runs, not how late a retry of
// an open one can come, and an engine should not need namespace-describe rights. The default, 30
// days, exceeds common retentions (1 day on the dev server, 3 by the CLI's default) and any
// worker outage worth planning for; rows are small (a digest and a version, no data).
import { defaultOf, type SettingValues } from '../../../common/configuration/configuration-table.ts';

export const MAX_RECORDS_SETTING = 'FLOWHOOK_RECORD_MAX_PER_COMPANY';

export const DEFAULT_WRITE_RETENTION_MS = defaultOf('FLOWHOOK_RECORD_WRITE_RETENTION');

export interface RecordSettings {
  /** Applied-write rows older than this are purged (record-write-purge.ts). */
  writeRetentionMs: number;
  /** 0: no quota. */
  maxRecordsPerCompany: number;
}

export const DEFAULT_RECORD_SETTINGS: RecordSettings = Object.freeze({
  writeRetentionMs: DEFAULT_WRITE_RETENTION_MS,
  maxRecordsPerCompany: defaultOf(MAX_RECORDS_SETTING),
});

export function readRecordSettings(
  settings: SettingValues<'FLOWHOOK_RECORD_WRITE_RETENTION' | typeof MAX_RECORDS_SETTING>,
): RecordSettings {
  return Object.freeze({
    writeRetentionMs: settings.FLOWHOOK_RECORD_WRITE_RETENTION,
    maxRecordsPerCompany: settings[MAX_RECORDS_SETTING],
  });
}
