// What turns tracing on (an exporter configured through the standard OTEL_*
// variables, nothing else), what each variable becomes, and that wrong values
// stop the process naming the variable — without quoting header credentials.
import test from 'ava';
import { readTracingConfig as tracingOf, type TracingOn } from '../../common/tracing/tracing-config.ts';
import { readSettings } from '../../common/configuration/read-settings.ts';

const readTracingConfig = (env: Record<string, string>) => tracingOf(readSettings(env, 'worker'));

const on = (env: Record<string, string>): TracingOn => {
  const config = readTracingConfig(env);
  if (!config.enabled) throw new Error('expected tracing on');
  return config;
};

test('off without OTEL variables, and with unrelated ones', (t) => {
  t.false(readTracingConfig({}).enabled);
  t.false(
    readTracingConfig({
      OTEL_SERVICE_NAME: 'flowhook',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=b',
    }).enabled,
  );
  t.false(readTracingConfig({ OTEL_TRACES_EXPORTER: '' }).enabled);
});

test('an OTLP endpoint turns it on; the general endpoint gets /v1/traces, the traces endpoint is used as given', (t) => {
  t.deepEqual(
    on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).otlp.url,
    'http://collector:4318/v1/traces',
  );
  t.deepEqual(
    on({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example/api/traces' }).otlp.url,
    'https://otlp.example/api/traces',
  );
  t.deepEqual(
    on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/t' }).otlp
      .url,
    'http://b:4318/t',
  );
  t.deepEqual(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }).exporters, ['otlp']);
});

test('OTEL_TRACES_EXPORTER names the exporters; none is off even with an endpoint; OTEL_SDK_DISABLED wins', (t) => {
  t.deepEqual(on({ OTEL_TRACES_EXPORTER: 'otlp' }).otlp.url, 'http://localhost:4318/v1/traces');
  t.deepEqual(on({ OTEL_TRACES_EXPORTER: 'console' }).exporters, ['console']);
  t.deepEqual(on({ OTEL_TRACES_EXPORTER: 'OTLP, console,otlp' }).exporters, ['otlp', 'console']);
  t.false(readTracingConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }).enabled);
  t.false(readTracingConfig({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }).enabled);
  t.false(readTracingConfig({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }).enabled);
  t.true(readTracingConfig({ OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' }).enabled);
});

test('headers, resource and service name', (t) => {
  const config = on({
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=general, x-team=ops',
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=traces%20key',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=from-attributes',
  });
  t.deepEqual(config.otlp.headers, { 'x-api-key': 'traces key', 'x-team': 'ops' });
  t.deepEqual(config.resource, { 'deployment.environment': 'prod', 'service.name': 'from-attributes' });
  t.is(
    on({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_SERVICE_NAME: 'flowhook-engine',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=x',
    }).resource['service.name'],
    'flowhook-engine',
  );
  t.is(on({ OTEL_TRACES_EXPORTER: 'otlp' }).resource['service.name'], 'flowhook');
  t.true(Object.isFrozen(config) && Object.isFrozen(config.otlp.headers));
});

test('sampler: parent-based always-on by default, the standard names and a ratio', (t) => {
  t.deepEqual(on({ OTEL_TRACES_EXPORTER: 'otlp' }).sampler, { name: 'parentbased_always_on', ratio: 1 });
  t.deepEqual(
    on({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).sampler,
    { name: 'traceidratio', ratio: 0.25 },
  );
  t.deepEqual(on({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'always_on' }).sampler.name, 'always_on');
});

test('wrong values stop the process naming the variable', (t) => {
  const refused = (env: Record<string, string>, variable: string) =>
    t.throws(() => readTracingConfig(env), { message: new RegExp(`^${variable}`) });
  refused({ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER');
  refused({ OTEL_SDK_DISABLED: 'yes' }, 'OTEL_SDK_DISABLED');
  refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  refused({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  refused({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  refused({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER');
  refused(
    { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
    'OTEL_TRACES_SAMPLER_ARG',
  );
  // A malformed headers variable is named, its (credential) text is not quoted.
  const error = t.throws(() =>
    readTracingConfig({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer s3cr3t,garbage-s3cr3t',
    }),
  );
  t.regex(error?.message ?? '', /^OTEL_EXPORTER_OTLP_HEADERS/);
  t.false(error?.message.includes('s3cr3t'));
  // Off wins before anything else is read: a disabled SDK never fails on the rest.
  t.false(readTracingConfig({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'zipkin' }).enabled);
});
