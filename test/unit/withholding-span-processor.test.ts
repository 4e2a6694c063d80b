// Spans leave with metadata only: exception messages and stacks, status
// messages and WorkflowInfo data (memo, search attributes) that Temporal's
// workflow-span sink copies onto every span are withheld; long strings are cut.
import test from 'ava';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { MAX_ATTRIBUTE_LENGTH, WithholdingSpanProcessor } from '../../common/tracing/withholding-span-processor.ts';

function setup() {
  const exporter = new InMemorySpanExporter();
  const processor = new WithholdingSpanProcessor(new SimpleSpanProcessor(exporter));
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  return { exporter, processor, tracer: provider.getTracer('test') };
}

test('an exception keeps its type; its message, stack and the status message are withheld', (t) => {
  const { exporter, tracer } = setup();
  const span = tracer.startSpan('RunActivity:httpRequest', {
    kind: SpanKind.INTERNAL,
    attributes: { 'flowhook.company': 'Acme', long: 'x'.repeat(5000) },
  });
  const error = new TypeError('order 4711 for alice@example.com failed at https://erp.example/api?key=s3cr3t');
  span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.end();
  const [exported] = exporter.getFinishedSpans();
  t.deepEqual(exported?.status, { code: SpanStatusCode.ERROR });
  t.deepEqual(
    exported?.events.map((event) => event.attributes),
    [{ 'exception.type': 'TypeError' }],
  );
  t.is(exported?.attributes['flowhook.company'], 'Acme');
  t.is((exported?.attributes.long as string).length, MAX_ATTRIBUTE_LENGTH);
  t.false(JSON.stringify(exported?.events).includes('s3cr3t'));
});

test('workflow spans from the sink keep plain WorkflowInfo metadata, not its memo, search attributes or last result', (t) => {
  const { exporter, processor } = setup();
  const sink = makeWorkflowExporter(processor, new Resource({ 'service.name': 'test' }));
  const info = {
    workflowId: 'orders:1',
    runId: 'run-1',
    workflowType: 'flowWorkflow',
    taskQueue: 'flows',
    attempt: 1,
    memo: { doNotLogPayload: true, payloadDigest: 'hmac-of-the-payload' },
    searchAttributes: { Company: ['Acme'] },
    lastResult: 'a previous run quoting the payload',
    startTime: new Date(),
  };
  const span = {
    name: 'RunWorkflow:flowWorkflow',
    kind: SpanKind.INTERNAL,
    spanContext: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 },
    startTime: [1, 0],
    endTime: [2, 0],
    status: { code: SpanStatusCode.ERROR, message: 'The flow failed: order 4711' },
    attributes: {},
    links: [],
    events: [
      {
        name: 'exception',
        time: [1, 5],
        attributes: { 'exception.type': 'ApplicationFailure', 'exception.message': 'order 4711' },
      },
    ],
    duration: [1, 0],
    ended: true,
    droppedAttributesCount: 0,
    droppedLinksCount: 0,
    droppedEventsCount: 0,
    instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
  };
  (sink.export.fn as (info: unknown, spans: unknown[]) => void)(info, [span]);
  const [exported] = exporter.getFinishedSpans();
  t.deepEqual(exported?.attributes, {
    workflowId: 'orders:1',
    runId: 'run-1',
    workflowType: 'flowWorkflow',
    taskQueue: 'flows',
    attempt: 1,
  });
  t.deepEqual(exported?.status, { code: SpanStatusCode.ERROR });
  t.false(JSON.stringify(exported?.events).includes('4711'));
  t.is(exported?.spanContext().traceId, '0af7651916cd43dd8448eb211c80319c');
});
