// Logs, Prometheus metrics and OpenTelemetry traces. The OTEL_* names are OpenTelemetry's own;
// tracing is off unless they configure an exporter (common/tracing/tracing-config.ts).
import { setting, settingsGroup } from '../setting.ts';
import { boolean } from '../values/boolean-value.ts';
import { choice } from '../values/choice-value.ts';
import { decimal } from '../values/decimal-value.ts';
import { keyValues } from '../values/key-values-value.ts';
import { list } from '../values/list-value.ts';
import { port } from '../values/port-value.ts';
import { text } from '../values/text-value.ts';
import { token } from '../values/token-value.ts';
import { url } from '../values/url-value.ts';
import { ownPort } from './own-port.ts';

const PROCESSES = ['engine', 'facade', 'worker'] as const;

export const OBSERVABILITY_SETTINGS = settingsGroup('Logs, metrics and traces', {
  FLOWHOOK_LOG_LEVEL: setting({
    type: choice(['debug', 'info', 'warn', 'error']),
    default: 'info',
    processes: PROCESSES,
    meaning:
      'JSON lines on stderr; at `info` one line per webhook call, one `call refused` line per 401/403, start/stop; `warn` keeps only refusals and problems',
    more: 'Engine, worker and facade alike, run apart or by `start`.',
  }),
  FLOWHOOK_ENGINE_METRICS_PORT: ownPort({
    type: port({ freePort: true, off: true }),
    default: 7051,
    meaning: 'engine: `GET /metrics` (Prometheus)',
    more: 'See [metrics](../how-to/observe.md#metrics).',
    processes: ['engine'],
  }),
  FLOWHOOK_WORKER_METRICS_PORT: setting({
    type: port({ freePort: true, off: true }),
    default: 7052,
    meaning: "worker: `GET /metrics` (with the Temporal SDK's metrics), `/healthz`, `/readyz`",
    processes: ['worker'],
  }),
  FLOWHOOK_FACADE_METRICS_PORT: ownPort({
    type: port({ freePort: true, off: true }),
    default: 7053,
    meaning:
      'facade: `GET /metrics` on a port of its own; the public port answers `/metrics` only with `FLOWHOOK_METRICS_TOKEN`',
    processes: ['facade'],
  }),
  FLOWHOOK_METRICS_HOST: setting({
    type: text(),
    default: '127.0.0.1',
    processes: PROCESSES,
    meaning: 'listen address of the metrics ports',
  }),
  FLOWHOOK_METRICS_TOKEN: setting({
    type: token(),
    secret: true,
    defaultText: 'unset: loopback only',
    processes: PROCESSES,
    meaning: "a bearer token that may read `/metrics` from anywhere (the metrics ports, and the facade's public port)",
    more: 'Without it only loopback clients that are not a forwarding proxy may, on the metrics ports only.',
  }),
  OTEL_SDK_DISABLED: setting({
    type: boolean(),
    default: false,
    processes: PROCESSES,
    meaning: '`true`: no tracing, whatever else is set',
  }),
  OTEL_TRACES_EXPORTER: setting({
    type: list(choice(['otlp', 'console', 'none'])),
    processes: PROCESSES,
    meaning: '`otlp`, `console` (spans on stdout) turn tracing on; `none` keeps it off',
    more: 'See [traces](../how-to/observe.md#traces).',
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: setting({
    type: url({ base: true }),
    defaultText: 'unset: no tracing; `http://localhost:4318` with `OTEL_TRACES_EXPORTER=otlp`',
    processes: PROCESSES,
    meaning: "the collector's base URL (OTLP/HTTP JSON; `/v1/traces` is added); set, tracing is on",
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: setting({
    type: url(),
    processes: PROCESSES,
    meaning: 'the full traces URL, instead of the above',
  }),
  OTEL_EXPORTER_OTLP_HEADERS: setting({
    type: keyValues(),
    secret: true,
    processes: PROCESSES,
    meaning: "`key=value,…` sent with every export (a backend's API key)",
  }),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: setting({
    type: keyValues(),
    secret: true,
    processes: PROCESSES,
    meaning: 'the same, for traces only',
  }),
  OTEL_EXPORTER_OTLP_PROTOCOL: setting({
    type: choice(['http/json']),
    default: 'http/json',
    processes: PROCESSES,
    meaning: 'the OTLP protocol',
    why: 'flowhook exports traces as OTLP/HTTP with JSON only',
  }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: setting({
    type: choice(['http/json']),
    default: 'http/json',
    processes: PROCESSES,
    meaning: 'the same, for traces only',
    why: 'flowhook exports traces as OTLP/HTTP with JSON only',
  }),
  OTEL_SERVICE_NAME: setting({
    type: text(),
    defaultText: '`service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else `flowhook`',
    processes: PROCESSES,
    meaning: "the spans' `service.name`",
  }),
  OTEL_RESOURCE_ATTRIBUTES: setting({
    type: keyValues(),
    processes: PROCESSES,
    meaning: 'further resource attributes on every span (`key=value,…`)',
  }),
  OTEL_TRACES_SAMPLER: setting({
    type: choice([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ]),
    default: 'parentbased_always_on',
    processes: PROCESSES,
    meaning: "the sampler; `always_on` ignores what the caller's trace context asks",
    more: "The SDK's own `OTEL_BSP_*` and `OTEL_EXPORTER_OTLP_TIMEOUT` apply as usual.",
  }),
  OTEL_TRACES_SAMPLER_ARG: setting({
    type: decimal({ min: 0, max: 1 }),
    default: 1,
    processes: PROCESSES,
    meaning: 'the ratio of the `traceidratio` samplers',
  }),
});
