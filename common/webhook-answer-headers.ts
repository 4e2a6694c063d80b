// The headers the webhook endpoint adds to a call's answer, beside the OData
// envelope: the facade sets them, the console's "Try it" panel (through the
// engine, engine/domain/flows/try-flow.ts) reads them.

/** The execution the call started (or joined, for a repeated idempotency key). */
export const EXECUTION_ID_HEADER = 'x-flowhook-execution-id';
/** How the call was answered: responded, sync-timeout, flow-ended, instant-return. */
export const OUTCOME_HEADER = 'x-flowhook-outcome';
