// Domain code adds what it learns to the span of the call it serves (the engine's
// RPC span): identifiers such as the flow's name and version, never request data.
// With tracing off there is no active span and this does nothing.
import { trace, type Attributes } from '@opentelemetry/api';

export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}
