// The metrics reference (docs/reference/metrics.md): the metrics each
// component registers, read from registries made as the processes make them
// (createEngineMetrics, createFacadeMetrics, createWorkerMetrics) — name, type,
// labels and help as Prometheus scrapes them — and the process metrics every
// process exports once. The Temporal SDK's own `temporal_*` metrics come from
// its Rust core, not from a registry here; the page's prose names them.
import { Registry, collectDefaultMetrics } from 'prom-client';
import { createEngineMetrics } from '../../engine/domain/metrics/engine-metrics.ts';
import { createFacadeMetrics } from '../../facade/metrics/facade-metrics.ts';
import { registerThreadHeapMetrics } from '../../common/metrics/thread-heaps.ts';
import { createWorkerMetrics } from '../../workflows/metrics/worker-metrics.ts';
import { code, table } from './markdown.ts';

interface Component {
  title: string;
  port: string;
  registry: () => { registry: Registry; close(): void };
}

const COMPONENTS: readonly Component[] = [
  {
    title: 'Facade',
    port: '`FLOWHOOK_FACADE_METRICS_PORT` (7053)',
    registry: () => createFacadeMetrics(undefined).registry,
  },
  { title: 'Engine', port: '`FLOWHOOK_ENGINE_METRICS_PORT` (7051)', registry: () => createEngineMetrics().registry },
  { title: 'Worker', port: '`FLOWHOOK_WORKER_METRICS_PORT` (7052)', registry: () => createWorkerMetrics().registry },
];

export function renderMetricsReference(): string {
  const processMetrics = new Registry();
  collectDefaultMetrics({ register: processMetrics });
  registerThreadHeapMetrics(processMetrics);
  const sections = COMPONENTS.map(({ title, port, registry }) => {
    const made = registry();
    // The first registry of a process also takes the process metrics: listed once, below.
    const own = made.registry
      .getMetricsAsArray()
      .filter(
        (metric) =>
          metricName(metric).startsWith('flowhook_') &&
          processMetrics.getSingleMetric(metricName(metric)) === undefined,
      );
    made.close();
    return [`## ${title}`, '', `On ${port}.`, '', metricsTable(own)].join('\n');
  });
  const process = processMetrics.getMetricsAsArray();
  const ours = process.filter((metric) => metricName(metric).startsWith('flowhook_'));
  const defaults = process.filter((metric) => !metricName(metric).startsWith('flowhook_'));
  return [
    ...sections,
    [
      '## Every process, once',
      '',
      'On the metrics port of the first component that starts in the process (the engine under `flowhook start`).',
      '',
      metricsTable(ours),
      '',
      `And prom-client's process metrics: ${defaults.map((metric) => code(metricName(metric))).join(', ')}.`,
    ].join('\n'),
  ].join('\n\n');
}

type RegisteredMetric = ReturnType<Registry['getMetricsAsArray']>[number];

function metricsTable(metrics: readonly RegisteredMetric[]): string {
  return table(
    ['metric', 'type', 'labels', 'meaning'],
    metrics.map((metric) => [code(metric.name), String(metric.type), labelsOf(metric), metric.help]),
  );
}

function metricName(metric: RegisteredMetric): string {
  return metric.name;
}

/** The label names: a field of every prom-client metric that its typings leave out. */
function labelsOf(metric: RegisteredMetric): string {
  const labels = (metric as { labelNames?: readonly string[] }).labelNames ?? [];
  return labels.length > 0 ? labels.map((label) => code(label)).join(', ') : '—';
}
