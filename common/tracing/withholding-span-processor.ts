// The last stop of every span before it leaves the process: whatever the
// instrumentation recorded, only metadata is exported.
//
// Why here and not at each span: the Temporal interceptors are not ours. On a
// failure they record the error's message and stack (`span.recordException`,
// the status message), and a flow's error message may quote its payload, a URL
// with a query, or a target's answer — also for doNotLogPayload flows. The
// workflow-span sink copies the whole WorkflowInfo onto each span as attributes
// (memo included, decoded: for doNotLogPayload flows the idempotency digest the
// history keeps encrypted). So spans keep their exception *type*, and only
// attributes that are plain values and not on the deny list below, strings cut
// at MAX_ATTRIBUTE_LENGTH (an activity name is caller text, up to a body's size).
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';

type Attributes = ReadableSpan['attributes'];

/** WorkflowInfo members that are data, not metadata (a primitive lastResult would pass the type check). */
const WITHHELD_ATTRIBUTES = new Set([
  'memo',
  'lastResult',
  'lastFailure',
  'searchAttributes',
  'typedSearchAttributes',
  'cronSchedule',
]);
const EXCEPTION_TYPE = 'exception.type';
export const MAX_ATTRIBUTE_LENGTH = 256;

export class WithholdingSpanProcessor implements SpanProcessor {
  readonly #next: SpanProcessor;

  constructor(next: SpanProcessor) {
    this.#next = next;
  }

  onStart(span: Span, parentContext: Context): void {
    this.#next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    this.#next.onEnd(withheld(span));
  }

  forceFlush(): Promise<void> {
    return this.#next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#next.shutdown();
  }
}

export function withheld(span: ReadableSpan): ReadableSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanId: span.parentSpanId,
    startTime: span.startTime,
    endTime: span.endTime,
    // The code says whether it failed; the message would say with what.
    status: { code: span.status.code },
    attributes: plainAttributes(span.attributes),
    links: span.links.map((link) => ({ context: link.context })),
    events: span.events.map(withheldEvent),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationLibrary: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

function withheldEvent(event: TimedEvent): TimedEvent {
  const type = event.attributes?.[EXCEPTION_TYPE];
  // exception.message and exception.stacktrace are dropped; other events keep their name only.
  return {
    name: event.name,
    time: event.time,
    attributes: typeof type === 'string' ? { [EXCEPTION_TYPE]: cut(type) } : {},
  };
}

function plainAttributes(attributes: Attributes): Attributes {
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (WITHHELD_ATTRIBUTES.has(key)) continue;
    if (isPlain(value)) kept[key] = cut(value);
    else if (Array.isArray(value) && value.every(isPlain))
      kept[key] = value.map(cut) as string[] | number[] | boolean[];
  }
  return kept;
}

function cut<T extends string | number | boolean>(value: T): T {
  return (
    typeof value === 'string' && value.length > MAX_ATTRIBUTE_LENGTH ? value.slice(0, MAX_ATTRIBUTE_LENGTH) : value
  ) as T;
}

function isPlain(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
