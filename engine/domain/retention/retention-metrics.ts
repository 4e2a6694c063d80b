// What the retention purge deleted, as Prometheus sees it: rows per kind, counted by the engine
// that deleted them (the schedule's rounds land on any engine: sum over engines), and when this
// engine last finished a round. Kinds are a closed set, so the labels are bounded.
import type { MetricsRegistry } from '../../../common/metrics/metrics-registry.ts';
import { ROW_KINDS, type RowKind } from './retention-kinds.ts';

export interface RetentionMetrics {
  /** One purge round ended, having deleted these rows. */
  purged(rows: Readonly<Record<RowKind, number>>): void;
}

export function createRetentionMetrics(registry: MetricsRegistry): RetentionMetrics {
  const rows = registry.counter(
    'flowhook_retention_purged_rows_total',
    'Rows this engine deleted because they were past their retention, by kind of data (retention schedule rounds; erasures are not counted)',
    ['kind'],
  );
  const lastRun = registry.gauge(
    'flowhook_retention_last_run_timestamp_seconds',
    'When this engine last finished a retention purge round (Unix time); 0 before its first. Take the max over engines',
  );
  // Every kind from the start, so a rate() over a kind that purged nothing yet is 0, not absent.
  for (const kind of ROW_KINDS) rows.get(kind);
  return {
    purged(purged) {
      for (const kind of ROW_KINDS) if (purged[kind] > 0) rows.get(kind).inc(purged[kind]);
      lastRun.set(Date.now() / 1000);
    },
  };
}
