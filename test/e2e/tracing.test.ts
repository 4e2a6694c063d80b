// OpenTelemetry tracing end to end: a caller's traceparent is continued by the
// facade, the engine, Temporal's client, workflow and activity, and the
// httpRequest step, whose target receives the same trace id — one connected
// trace, exported over OTLP/HTTP to a receiver in this process. Nothing from
// payloads, URLs' queries or credentials leaves with the spans, also when a
// flow fails with a message quoting its payload. Without OTEL_* configuring an
// exporter nothing is installed and targets get no traceparent.
// (ava runs this file in its own process, so its global tracer provider is its own.)
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { trace } from '@opentelemetry/api';
import { eventually } from '../support/eventually.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
const QUERY_MARK = `query-${randomBytes(6).toString('hex')}`;
const PAYLOAD_MARK = `payload-${randomBytes(6).toString('hex')}`;

let receiver: OtlpReceiver;
let target: TargetServer;
const stacks: TestStack[] = [];
const untraced = { traceId: '' };
let traced: { stack: TestStack; tenant: Tenant };

const traceIds = () => ({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') });
const sync = (activity: string, extra: Record<string, unknown> = {}) => ({
  activity,
  responseMode: 'WAIT_FOR_RESPONSE_STEP',
  syncTimeoutSeconds: 20,
  ...extra,
});

test.before(async () => {
  receiver = await startOtlpReceiver();
  target = await startTargetServer();
});

test.after.always(async () => {
  for (const stack of stacks) await stack.close();
  await target?.close();
  await receiver?.close();
});

async function stackWith(env: Record<string, string>): Promise<{ stack: TestStack; tenant: Tenant }> {
  const stack = await startStack({ env });
  stacks.push(stack);
  return { stack, tenant: await createTenant(stack) };
}

async function spansOf(
  traceId: string,
  done: (spans: ReceivedSpan[]) => boolean,
  timeoutMs = 40_000,
): Promise<ReceivedSpan[]> {
  return eventually(() => receiver.spans.filter((span) => span.traceId === traceId), {
    until: done,
    timeoutMs,
    intervalMs: 200,
    what: `the awaited spans of trace ${traceId}`,
    show: (spans) => spans.map((span) => `${span.scope} ${span.name}`).join(', '),
  });
}

test.serial(
  'tracing is off without an exporter: OTEL_TRACES_EXPORTER=none wins over an endpoint, and targets get no traceparent',
  async (t) => {
    const { stack, tenant } = await stackWith({
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    const { secret } = await deployFlow(
      stack,
      flow(tenant.company, 'trace-off', sync('trace.off'), [
        {
          httpRequest: {
            description: 'Tell the ERP',
            url: `${target.url}/off/orders`,
            method: 'POST',
            body: '${Trigger.PayloadJson}',
          },
        },
        { respond: { description: 'Accepted', statusCode: 201, body: 'ok' } },
      ]),
    );
    const ids = traceIds();
    untraced.traceId = ids.traceId;
    const answer = await callWebhook(stack, {
      company: tenant.company,
      activity: 'trace.off',
      secret,
      auth: tenant.auth,
      payloadText: '{"n": 1}',
      headers: { traceparent: `00-${ids.traceId}-${ids.spanId}-01` },
    });
    t.is(answer.status, 200);
    t.is(answer.value?.statusCode, 201);
    const received = await target.waitFor('/off/orders');
    t.is(received.headers.traceparent, undefined);
    t.is(received.headers.tracestate, undefined);
    // Nothing was installed: the process's tracer provider is still OTel's no-op one.
    t.false(trace.getTracer('probe').startSpan('probe').isRecording());
  },
);

test.serial('one trace spans caller → facade → engine → Temporal → outbound HTTP, with metadata only', async (t) => {
  traced = await stackWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'flowhook-test' });
  const { stack, tenant } = traced;
  const { secret } = await deployFlow(
    stack,
    flow(tenant.company, 'trace-erp', sync('trace.erp', { doNotLogPayload: true }), [
      {
        httpRequest: {
          description: 'Tell the ERP',
          url: `${target.url}/erp/orders?apiKey=${QUERY_MARK}`,
          method: 'POST',
          body: '${Trigger.PayloadJson}',
        },
      },
      {
        respond: {
          description: 'Accepted',
          statusCode: 201,
          contentType: 'application/json',
          body: '{"accepted": true}',
        },
      },
    ]),
  );
  const caller = traceIds();
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'trace.erp',
    secret,
    auth: tenant.auth,
    payloadText: `{"marker": "${PAYLOAD_MARK}", "order": 7}`,
    headers: {
      traceparent: `00-${caller.traceId}-${caller.spanId}-01`,
      tracestate: 'caller=private-vendor-state',
      'idempotency-key': `k-${PAYLOAD_MARK}`,
    },
  });
  t.is(answer.status, 200, answer.text);
  t.is(answer.value?.statusCode, 201);

  const spans = await spansOf(
    caller.traceId,
    (found) =>
      [
        'flowhook-facade',
        'flowhook-engine',
        '@temporalio/interceptor-client',
        '@temporalio/interceptor-workflow',
        '@temporalio/interceptor-activity',
        'flowhook-worker',
      ].every((scope) => found.some((span) => span.scope === scope)) &&
      found.some((span) => span.name === 'RunWorkflow:flowWorkflow') &&
      found.some((span) => span.scope === 'flowhook-facade' && span.kind === SERVER),
  );
  t.log(
    spans
      .map((span) => `${span.scope} ${span.name}`)
      .sort()
      .join('\n'),
  );
  const find = (what: string, match: (span: ReceivedSpan) => boolean) => {
    const span = spans.find(match);
    if (!span)
      t.fail(`no ${what} span in the caller's trace; got ${spans.map((s) => `${s.scope} ${s.name}`).join(', ')}`);
    return span!;
  };

  const facade = find('facade request', (s) => s.scope === 'flowhook-facade' && s.kind === SERVER);
  t.is(facade.parentSpanId, caller.spanId, 'the facade continues the caller span');
  t.is(facade.name, 'POST /:instance/ODataV4/flowWebhook_Invoke');
  t.is(facade.attributes['http.response.status_code'], 200);
  t.is(facade.attributes['flowhook.company'], tenant.company);
  const facadeCall = find(
    'facade → engine',
    (s) => s.scope === 'flowhook-facade' && s.kind === CLIENT && s.name === 'flowhook.engine.v1.WebhookService/Invoke',
  );
  t.is(facadeCall.parentSpanId, facade.spanId);
  const engine = find(
    'engine RPC',
    (s) => s.scope === 'flowhook-engine' && s.kind === SERVER && s.name === 'flowhook.engine.v1.WebhookService/Invoke',
  );
  t.is(engine.parentSpanId, facadeCall.spanId);
  t.like(engine.attributes, {
    'flowhook.company': tenant.company,
    'flowhook.activity': 'trace.erp',
    'flowhook.flow': 'trace-erp',
    'flowhook.flow_version': 1,
    'rpc.system': 'connect_rpc',
  });
  const start = find(
    'Temporal client',
    (s) => s.scope === '@temporalio/interceptor-client' && s.name.startsWith('UpdateWithStartWorkflow:'),
  );
  t.is(start.parentSpanId, engine.spanId);
  const run = find('workflow run', (s) => s.name === 'RunWorkflow:flowWorkflow');
  t.is(run.parentSpanId, start.spanId);
  t.is(run.attributes.workflowId, answer.executionId);
  find('activity schedule', (s) => s.name === 'StartActivity:httpRequest');
  const activity = find('activity run', (s) => s.name === 'RunActivity:httpRequest');
  const outbound = find(
    'outbound HTTP',
    (s) => s.scope === 'flowhook-worker' && s.kind === CLIENT && s.name === 'POST',
  );
  t.is(outbound.parentSpanId, activity.spanId);
  t.like(outbound.attributes, {
    'http.request.method': 'POST',
    'server.address': '127.0.0.1',
    'http.response.status_code': 200,
  });
  // The worker asked the engine for the company's egress list inside the same trace.
  find(
    'engine RPC from the worker',
    (s) => s.scope === 'flowhook-engine' && s.name === 'flowhook.engine.v1.OutboundService/ResolveOutbound',
  );

  // The target got the outbound span's context — the caller's trace id — and not the caller's tracestate.
  const received = await target.waitFor('/erp/orders');
  t.is(received.headers.traceparent, `00-${caller.traceId}-${outbound.spanId}-01`);
  t.is(received.headers.tracestate, undefined);

  // What the history keeps of it: the Temporal header holds the W3C context only, as plain JSON.
  const history = await stack.temporal.workflow.getHandle(answer.executionId!).fetchHistory();
  const started = history.events?.find(
    (event) => event.workflowExecutionStartedEventAttributes,
  )?.workflowExecutionStartedEventAttributes;
  const header = started?.header?.fields?.['_tracer-data'];
  const carried = JSON.parse(Buffer.from(header?.data ?? []).toString('utf8')) as Record<string, string>;
  t.deepEqual(Object.keys(carried).sort(), ['traceparent', 'tracestate']);
  t.regex(carried.traceparent ?? '', new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
  t.is(carried.tracestate, 'caller=private-vendor-state');

  // One connected trace: every span hangs below the caller's span.
  const ids = new Set([caller.spanId, ...spans.map((span) => span.spanId)]);
  t.deepEqual(
    spans.filter((span) => !ids.has(span.parentSpanId ?? '')).map((span) => span.name),
    [],
  );
  t.true(spans.every((span) => span.serviceName === 'flowhook-test'));

  // Metadata only: no payload, query, secret or credential; no WorkflowInfo data (memo, search attributes).
  const exported = receiver.bodies.join('\n');
  for (const [what, text] of Object.entries({
    payload: PAYLOAD_MARK,
    query: QUERY_MARK,
    secret,
    accessKey: tenant.accessKey,
    facadeToken: stack.serviceToken,
    workerToken: stack.tokens.worker,
  })) {
    t.false(exported.includes(text), `${what} was exported`);
  }
  for (const span of spans) {
    for (const key of ['memo', 'searchAttributes', 'typedSearchAttributes', 'lastResult'])
      t.false(key in span.attributes, `${span.name} exports ${key}`);
  }

  // Tracing off in one stack does not switch on in another process-wide: the first call's trace never arrived.
  t.deepEqual(
    receiver.spans.filter((span) => span.traceId === untraced.traceId),
    [],
  );
});

test.serial('a failing flow exports the failure kind, never its message', async (t) => {
  const { stack, tenant } = traced;
  const { secret } = await deployFlow(
    stack,
    flow(tenant.company, 'trace-fail', sync('trace.fail'), [
      { fail: { description: 'Refuse the order', message: 'refused order {{Trigger.Payload.marker}}' } },
    ]),
  );
  const caller = traceIds();
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'trace.fail',
    secret,
    auth: tenant.auth,
    payloadText: `{"marker": "${PAYLOAD_MARK}-fail"}`,
    headers: { traceparent: `00-${caller.traceId}-${caller.spanId}-01` },
  });
  t.is(answer.status, 500);

  const spans = await spansOf(
    caller.traceId,
    (found) =>
      found.some((span) => span.name === 'RunWorkflow:flowWorkflow') &&
      found.some((span) => span.scope === 'flowhook-facade' && span.kind === SERVER),
  );
  const facade = spans.find((span) => span.scope === 'flowhook-facade' && span.kind === SERVER);
  t.is(facade?.attributes['http.response.status_code'], 500);
  t.is(facade?.statusCode, ERROR);
  const run = spans.find((span) => span.name === 'RunWorkflow:flowWorkflow');
  t.is(run?.statusCode, ERROR);
  const exception = run?.events.find((event) => event.name === 'exception');
  t.truthy(exception, 'the workflow span records that it failed');
  t.deepEqual(Object.keys(exception?.attributes ?? {}), ['exception.type']);
  t.false(
    receiver.bodies.join('\n').includes(`${PAYLOAD_MARK}-fail`),
    'the failure message (quoting the payload) was exported',
  );
});
