// The Temporal SDK's own metrics (temporal_*: polls, task slots, schedule-to-
// start and execution latencies, sticky cache, …) come from its Rust core,
// which is configured once per process, in Runtime.install. The core serves
// them as Prometheus text on a loopback port of its own; the worker's /metrics
// appends that text to its own registry's, so one scrape gets both. Being per
// process, they are the same on every worker in the process (`flowhook start`,
// tests): their task_queue and namespace labels tell workers apart. Names and
// units are the SDK's defaults (durations in milliseconds), which Temporal's
// published dashboards expect.
import { createServer } from 'node:net';
import type { MetricsExporterConfig } from '@temporalio/worker';

export interface SdkMetricsExporter {
  /** For Runtime.install({ telemetryOptions: { metrics } }). */
  telemetry: MetricsExporterConfig;
  /** Called when the Runtime was installed with `telemetry` (a process has one Runtime, installed once). */
  activate(): void;
  /** The SDK's exposition text; empty when its exporter is not running in this process. */
  scrape(): Promise<string>;
}

const SCRAPE_TIMEOUT_MS = 2000;
let reserved: Promise<SdkMetricsExporter> | undefined;

/** The process's one exporter: a free loopback port is reserved on first use. */
export function sdkMetricsExporter(): Promise<SdkMetricsExporter> {
  reserved ??= freeLoopbackPort().then(exporterOn);
  return reserved;
}

function exporterOn(port: number): SdkMetricsExporter {
  let active = false;
  return {
    telemetry: { prometheus: { bindAddress: `127.0.0.1:${port}` } },
    activate() {
      active = true;
    },
    async scrape() {
      // Not ours to read unless our Runtime bound it: the port could belong to anything else.
      if (!active) return '';
      try {
        const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
          signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS),
        });
        return response.ok ? await response.text() : '';
      } catch {
        return '';
      }
    },
  };
}

/** The core binds the address itself and cannot report a port 0 choice back, so one is picked here (a small race, on loopback). */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('the OS returned no port'))));
    });
  });
}
