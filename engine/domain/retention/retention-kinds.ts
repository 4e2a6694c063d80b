// Every kind of data flowhook keeps, with the setting that bounds it and who deletes it: the table
// `flowhook retention show` prints and the purge walks. Rows in PostgreSQL are deleted by the
// retention schedule (expired-rows-purge.ts); executions and flow control's coordinators live in
// Temporal, which deletes closed ones after the namespace's retention (namespace-retention.ts).
//
// Idempotency is kept in three places: an Idempotency-Key makes the execution id deterministic
// (engine/domain/flow-control/idempotency.ts), so a retry joins the first execution for as long
// as Temporal keeps it — the executions' retention; the record step's applied writes are
// `record_write` rows; a provider delivery whose signature covers no timestamp is remembered in
// `provider_delivery`. The last is the `idempotency` kind here; record writes are their own.
import { formatDuration } from '../../../common/duration.ts';
import type { AgedRows } from '../../infrastructure/housekeeping/aged-rows.ts';
import { AUDIT_EVENT_ROWS } from '../audit/audit-purge.ts';
import { PROVIDER_DELIVERY_ROWS } from '../direct/delivery-memory.ts';
import { RECORD_WRITE_ROWS } from '../records/record-write-purge.ts';

/** Kinds kept in PostgreSQL, in the order they are purged and shown. */
export const ROW_KINDS = [
  'deliveries',
  'audit',
  'console_sessions',
  'idempotency',
  'callbacks',
  'record_writes',
] as const;
export type RowKind = (typeof ROW_KINDS)[number];

/** Kinds kept in Temporal. */
export const TEMPORAL_KINDS = ['executions', 'coordinators'] as const;
export type TemporalKind = (typeof TEMPORAL_KINDS)[number];

/** How long each kind in PostgreSQL is kept, in ms; undefined: for good (audit with `off`). */
export interface RowRetentions {
  deliveries: number;
  audit?: number;
  /** Console sessions are deleted once expired: their lifetime is FLOWHOOK_CONSOLE_SESSION_TTL. */
  console_sessions: 0;
  idempotency: number;
  callbacks: number;
  record_writes: number;
}

export interface KindFacts {
  description: string;
  /** The variable that sets it ('' where nothing of flowhook's does). */
  setting: string;
  /** The table, and the indexed column the age is measured from (the oldest row is cheap to read by it). */
  rows?: AgedRows;
  /** Where the oldest-row age is not cheap to read (no index on the age column). */
  oldestUnindexed?: true;
  note?: string;
}

export const KIND_FACTS: Readonly<Record<RowKind | TemporalKind, KindFacts>> = {
  deliveries: {
    description: 'the delivery log: every request answered, refused ones too (`delivery`)',
    setting: 'FLOWHOOK_DELIVERY_RETENTION',
    rows: { table: 'delivery', key: 'id', column: 'received_at' },
  },
  audit: {
    description: 'the audit log of admin actions (`audit_event`)',
    setting: 'FLOWHOOK_AUDIT_RETENTION',
    rows: AUDIT_EVENT_ROWS,
    note: 'evidence: kept by an erasure too',
  },
  console_sessions: {
    description: "the web console's sessions (`console_session`)",
    setting: 'FLOWHOOK_CONSOLE_SESSION_TTL',
    rows: { table: 'console_session', key: 'id', column: 'expires_at' },
    note: 'deleted once expired (also when next presented); the oldest is the earliest expiry',
  },
  idempotency: {
    description: 'provider deliveries remembered against replays (`provider_delivery`: a digest and a time)',
    setting: 'FLOWHOOK_HOOK_REPLAY_WINDOW',
    rows: PROVIDER_DELIVERY_ROWS,
    note: 'Idempotency-Key retries join their execution while Temporal keeps it (executions)',
  },
  callbacks: {
    description: 'waitForCallback URLs and keys (`callback_wait`)',
    setting: 'FLOWHOOK_CALLBACK_RETENTION',
    oldestUnindexed: true,
    note: 'counted from use or expiry; unused rows stay while their execution runs',
  },
  record_writes: {
    description: "the record step's applied-write digests (`record_write`)",
    setting: 'FLOWHOOK_RECORD_WRITE_RETENTION',
    rows: RECORD_WRITE_ROWS,
  },
  coordinators: {
    description: "flow control's coordinators (Temporal workflows)",
    setting: '',
    note: 'a running coordinator continues as new, so its history stays short; closed runs follow the namespace retention',
  },
  executions: {
    description: 'executions, with their payloads and history (Temporal)',
    setting: 'FLOWHOOK_EXECUTION_RETENTION',
    note: 'closed executions, after the namespace retention; `flowhook start` sets it on its dev server, a cluster keeps its own',
  },
};

/** Who deletes each kind, as `retention show` says it. */
export const SCHEDULE_ENFORCED = 'schedule flowhook-retention';
export const TEMPORAL_ENFORCED = 'temporal namespace';
/** A kind nothing deletes (the audit log with FLOWHOOK_AUDIT_RETENTION=off). */
export const KEPT_FOR_GOOD = 'none: kept for good';

/** A retention as `retention show` prints it. */
export function retentionText(kind: RowKind, retentions: RowRetentions, sessionTtlMs: number): string {
  if (kind === 'console_sessions') return `expiry (${formatDuration(sessionTtlMs)})`;
  const ms = retentions[kind];
  return ms === undefined ? 'off' : formatDuration(ms);
}

/** Rows per kind, every kind present (0 where none), in ROW_KINDS order. */
export function countsOf(partial: Partial<Record<RowKind, number>>): Record<RowKind, number> {
  return Object.fromEntries(ROW_KINDS.map((kind) => [kind, partial[kind] ?? 0])) as Record<RowKind, number>;
}
