// Metadata the engine attaches to Connect errors for the facade to read, and
// headers the facade sends with its calls.

/** On ResourceExhausted: whole seconds the refused caller should wait (the facade's Retry-After). */
export const RETRY_AFTER_METADATA = 'retry-after';

/** The request id as a header as well: the engine's gate logs a refused call without reading its body. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** On Unauthenticated and PermissionDenied from WebhookService: the refusal reason (common/refusal-reasons.ts), for the facade's delivery log. */
export const REFUSAL_REASON_METADATA = 'flowhook-refusal-reason';
