// Preloaded into the workflow sandbox once per worker thread (worker.ts),
// before the Temporal SDK freezes the sandbox's globals: no stack traces
// inside workflow code.
//
// Why: the SDK records a stack trace, mapped through the bundle's source map,
// for every promise workflow code creates (to answer its "stack trace" query).
// The interpreter's formula engine (JSONata) creates many promises per
// formula, and that bookkeeping was about half of the worker's CPU for a short
// flow. Flow failures are reported by step and reason and in the execution
// log, never by interpreter frames; set FLOWHOOK_WORKFLOW_STACK_TRACES=true
// to get the frames back when debugging the interpreter itself.
Error.stackTraceLimit = 0;

export {};
