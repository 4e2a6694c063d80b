// OpenTelemetry tracing, read once from the standard OTEL_* variables into a
// typed, frozen object that engine, facade and worker configurations embed.
//
// Tracing is OFF unless the environment configures an exporter, unlike the OTel
// SDKs (which default to exporting OTLP to localhost): an install that never
// asked for traces must not send them anywhere, nor pay for them. "Configures
// an exporter" means OTEL_TRACES_EXPORTER names one (otlp, console; `none` is
// off), or, with OTEL_TRACES_EXPORTER unset, OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set. OTEL_SDK_DISABLED=true wins over
// everything. A wrong value stops the process with a message naming the variable.
import type { SettingValues } from '../configuration/configuration-table.ts';

export type TraceExporterKind = 'otlp' | 'console';
export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface TracingOn {
  enabled: true;
  exporters: readonly TraceExporterKind[];
  /** OTLP/HTTP with JSON bodies (the only protocol shipped; collectors accept it on :4318). */
  otlp: { url: string; headers: Readonly<Record<string, string>> };
  /** Resource attributes: OTEL_RESOURCE_ATTRIBUTES, with OTEL_SERVICE_NAME (default `flowhook`) as service.name. */
  resource: Readonly<Record<string, string>>;
  sampler: { name: SamplerName; ratio: number };
}

export type TracingConfig = TracingOn | { enabled: false };

export const TRACING_OFF: TracingConfig = Object.freeze({ enabled: false });

export type TracingSettings = SettingValues<
  | 'OTEL_SDK_DISABLED'
  | 'OTEL_TRACES_EXPORTER'
  | 'OTEL_EXPORTER_OTLP_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_HEADERS'
  | 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'
  | 'OTEL_EXPORTER_OTLP_PROTOCOL'
  | 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
  | 'OTEL_SERVICE_NAME'
  | 'OTEL_RESOURCE_ATTRIBUTES'
  | 'OTEL_TRACES_SAMPLER'
  | 'OTEL_TRACES_SAMPLER_ARG'
>;

const DEFAULT_OTLP_BASE = 'http://localhost:4318';

// Each value is read only when it matters: a disabled SDK never fails on the rest, and settings
// of an exporter that is off are not held against the process.
export function readTracingConfig(settings: TracingSettings): TracingConfig {
  if (settings.OTEL_SDK_DISABLED) return TRACING_OFF;
  const exporters = readExporters(settings);
  if (exporters.length === 0) return TRACING_OFF;
  // Read for their check only: http/json is the one protocol shipped.
  void settings.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL;
  void settings.OTEL_EXPORTER_OTLP_PROTOCOL;
  const attributes = settings.OTEL_RESOURCE_ATTRIBUTES ?? {};
  const sampler = settings.OTEL_TRACES_SAMPLER;
  return Object.freeze({
    enabled: true,
    exporters: Object.freeze(exporters),
    otlp: Object.freeze({
      url: otlpUrl(settings),
      headers: Object.freeze({ ...settings.OTEL_EXPORTER_OTLP_HEADERS, ...settings.OTEL_EXPORTER_OTLP_TRACES_HEADERS }),
    }),
    resource: Object.freeze({
      ...attributes,
      'service.name': settings.OTEL_SERVICE_NAME ?? attributes['service.name'] ?? 'flowhook',
    }),
    sampler: Object.freeze({
      name: sampler,
      ratio: sampler.endsWith('traceidratio') ? settings.OTEL_TRACES_SAMPLER_ARG : 1,
    }),
  } satisfies TracingOn);
}

/** With OTEL_TRACES_EXPORTER unset, an OTLP endpoint alone turns tracing on. */
function readExporters(settings: TracingSettings): TraceExporterKind[] {
  const names = settings.OTEL_TRACES_EXPORTER;
  if (names === undefined) {
    const endpoint = settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? settings.OTEL_EXPORTER_OTLP_ENDPOINT;
    return endpoint === undefined ? [] : ['otlp'];
  }
  if (names.includes('none')) return [];
  return [...new Set(names.filter((name) => name !== 'none'))];
}

/** The signal-specific endpoint is used as given; the general one gets /v1/traces appended (OTLP exporter spec). */
function otlpUrl(settings: TracingSettings): string {
  return (
    settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    `${settings.OTEL_EXPORTER_OTLP_ENDPOINT ?? DEFAULT_OTLP_BASE}/v1/traces`
  );
}
