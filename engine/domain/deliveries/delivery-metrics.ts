// What the delivery log did with the facades' reports, as Prometheus sees it: stored one by one,
// or counted on a summary row past the flood bound (flood-bound.ts). A rising `counted` is a flood
// of refused calls — the alert `calls-refused` says the same to people.
import type { MetricsRegistry } from '../../../common/metrics/metrics-registry.ts';

export interface DeliveryLogMetrics {
  /** One batch of reports taken: how many became rows, and how many were counted on summary rows. */
  taken(stored: number, counted: number): void;
}

export function createDeliveryLogMetrics(registry: MetricsRegistry): DeliveryLogMetrics {
  const reports = registry.counter(
    'flowhook_engine_deliveries_total',
    "Deliveries the facades reported to this engine's delivery log, by what became of them: `stored` (a row each) or `counted` (past the flood bound, added to a summary row)",
    ['result'],
  );
  const stored = reports.get('stored');
  const counted = reports.get('counted');
  return {
    taken(storedCount, countedCount) {
      stored.inc(storedCount);
      counted.inc(countedCount);
    },
  };
}
