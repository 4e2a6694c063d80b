// What `flowhook retention show` reports: every kind of data (retention-kinds.ts) with its setting,
// its retention as this engine applies it, who enforces it, what the last finished scheduled purge
// deleted, and the oldest row where an index makes that one cheap lookup; executions and
// coordinators with the namespace's retention as Temporal describes it.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { formatDuration } from '../../../common/duration.ts';
import { retentionScheduleState, type RetentionScheduleState } from './last-purge.ts';
import { namespaceRetentionMs } from './namespace-retention.ts';
import {
  KEPT_FOR_GOOD,
  KIND_FACTS,
  retentionText,
  ROW_KINDS,
  SCHEDULE_ENFORCED,
  TEMPORAL_ENFORCED,
  TEMPORAL_KINDS,
  type RowKind,
  type TemporalKind,
} from './retention-kinds.ts';
import type { RetentionSettings } from './retention-settings.ts';

export interface KindReport {
  kind: RowKind | TemporalKind;
  description: string;
  setting: string;
  retention: string;
  enforcedBy: string;
  oldest?: Date;
  lastPurged: number;
  note: string;
}

export interface RetentionReport {
  kinds: KindReport[];
  schedule: RetentionScheduleState;
  namespace: string;
}

export interface RetentionReportDeps {
  orm: MikroORM;
  temporal: Client;
  namespace: string;
  taskQueue: string;
  retention: RetentionSettings;
}

export async function retentionReport(deps: RetentionReportDeps): Promise<RetentionReport> {
  const schedule = await retentionScheduleState(deps.temporal, deps.taskQueue);
  const kinds: KindReport[] = [];
  for (const kind of ROW_KINDS) {
    const facts = KIND_FACTS[kind];
    kinds.push({
      kind,
      description: facts.description,
      setting: facts.setting,
      retention: retentionText(kind, deps.retention.rows, deps.retention.consoleSessionTtlMs),
      enforcedBy: kind === 'audit' && deps.retention.rows.audit === undefined ? KEPT_FOR_GOOD : SCHEDULE_ENFORCED,
      oldest: facts.rows && !facts.oldestUnindexed ? await oldestRow(deps.orm, facts.rows) : undefined,
      lastPurged: schedule.last?.purged[kind] ?? 0,
      note: facts.note ?? '',
    });
  }
  let retention = 'unknown';
  let problem = '';
  try {
    retention = formatDuration(await namespaceRetentionMs(deps.temporal, deps.namespace));
  } catch (error) {
    problem = `the namespace could not be described: ${error instanceof Error ? error.message : String(error)}`;
  }
  for (const kind of TEMPORAL_KINDS) {
    const facts = KIND_FACTS[kind];
    kinds.push({
      kind,
      description: facts.description,
      setting: facts.setting,
      retention,
      enforcedBy: TEMPORAL_ENFORCED,
      lastPurged: 0,
      note: problem || (facts.note ?? ''),
    });
  }
  return { kinds, schedule, namespace: deps.namespace };
}

/** min() over an indexed column: one index lookup. */
async function oldestRow(orm: MikroORM, rows: { table: string; column: string }): Promise<Date | undefined> {
  const found = await orm.em
    .getConnection()
    .execute<{ oldest: Date | string | null }[]>(`select min("${rows.column}") as "oldest" from "${rows.table}"`);
  const oldest = found[0]?.oldest;
  return oldest ? new Date(oldest) : undefined;
}
