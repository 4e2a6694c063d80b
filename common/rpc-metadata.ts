// Metadata the engine attaches to Connect errors for the facade to read.

/** On ResourceExhausted: whole seconds the refused caller should wait (the facade's Retry-After). */
export const RETRY_AFTER_METADATA = 'retry-after';
