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
import type { Env } from '../env-values.ts';
import { withoutTrailingSlashes } from '../trailing-slashes.ts';

export type TraceExporterKind = 'otlp' | 'console';
export type SamplerName = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

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

/** Every variable read here, for `--help` environment lists. */
export const TRACING_VARIABLES = [
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
] as const;

const DEFAULT_OTLP_BASE = 'http://localhost:4318';
const SAMPLERS: readonly SamplerName[] = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

export function readTracingConfig(env: Env): TracingConfig {
  if (sdkDisabled(env)) return TRACING_OFF;
  const exporters = readExporters(env);
  if (exporters.length === 0) return TRACING_OFF;
  readProtocol(env);
  return Object.freeze({
    enabled: true,
    exporters: Object.freeze(exporters),
    otlp: Object.freeze({ url: otlpUrl(env), headers: Object.freeze({ ...keyValues(env, 'OTEL_EXPORTER_OTLP_HEADERS'), ...keyValues(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') }) }),
    resource: Object.freeze({ ...keyValues(env, 'OTEL_RESOURCE_ATTRIBUTES'), 'service.name': value(env, 'OTEL_SERVICE_NAME') ?? keyValues(env, 'OTEL_RESOURCE_ATTRIBUTES')['service.name'] ?? 'flowhook' }),
    sampler: Object.freeze(readSampler(env)),
  } satisfies TracingOn);
}

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === '' ? undefined : raw;
}

function sdkDisabled(env: Env): boolean {
  const raw = value(env, 'OTEL_SDK_DISABLED')?.toLowerCase();
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`OTEL_SDK_DISABLED must be true or false, got "${env.OTEL_SDK_DISABLED}"`);
}

function readExporters(env: Env): TraceExporterKind[] {
  const raw = value(env, 'OTEL_TRACES_EXPORTER');
  if (raw === undefined) {
    const endpoint = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    return endpoint === undefined ? [] : ['otlp'];
  }
  const names = [...new Set(raw.toLowerCase().split(',').map((name) => name.trim()).filter((name) => name !== ''))];
  if (names.includes('none')) return [];
  for (const name of names) {
    if (name !== 'otlp' && name !== 'console') throw new Error(`OTEL_TRACES_EXPORTER must be otlp, console or none (a comma list), got "${raw}"`);
  }
  return names as TraceExporterKind[];
}

function readProtocol(env: Env): void {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const raw = value(env, name);
    if (raw !== undefined && raw !== 'http/json') throw new Error(`${name}: flowhook exports traces as OTLP/HTTP with JSON only; set http/json or leave it unset, got "${raw}"`);
  }
}

/** The signal-specific endpoint is used as given; the general one gets /v1/traces appended (OTLP exporter spec). */
function otlpUrl(env: Env): string {
  const specific = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const general = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const url = specific ?? `${withoutTrailingSlashes((general ?? DEFAULT_OTLP_BASE))}/v1/traces`;
  const name = specific !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let protocol = '';
  try {
    protocol = new URL(url).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got "${env[name]}"`);
  return url;
}

/** `key=value,key2=value2` with percent-encoded parts (W3C Baggage syntax, as OTEL_*_HEADERS and OTEL_RESOURCE_ATTRIBUTES use). */
function keyValues(env: Env, name: string): Record<string, string> {
  const raw = value(env, name);
  const pairs: Record<string, string> = {};
  if (raw === undefined) return pairs;
  for (const item of raw.split(',')) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    const key = at > 0 ? decode(item.slice(0, at).trim()) : undefined;
    // Header values are credentials: the message names the variable and the item's position, never its text.
    if (!key) throw new Error(`${name} must be a comma list of key=value, item ${Object.keys(pairs).length + 1} is not`);
    pairs[key] = decode(item.slice(at + 1).trim());
  }
  return pairs;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function readSampler(env: Env): TracingOn['sampler'] {
  const raw = value(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on';
  const name = SAMPLERS.find((candidate) => candidate === raw);
  if (!name) throw new Error(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}; got "${env.OTEL_TRACES_SAMPLER}"`);
  const arg = value(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = arg === undefined ? 1 : Number(arg);
  if (name.endsWith('traceidratio') && !(Number.isFinite(ratio) && ratio >= 0 && ratio <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${arg}"`);
  return { name, ratio };
}
