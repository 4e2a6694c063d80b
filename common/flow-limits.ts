// Upper bounds on what a flow may ask for: how long a deferral may wait and
// how long one httpRequest attempt may take. The engine reads them from its
// configuration (FLOWHOOK_MAX_DEFERRAL, FLOWHOOK_MAX_HTTP_TIMEOUT), checks
// flow files against them at publish and hands them to every execution, which
// checks the values only known at run time (a waitUntil formula's instant).

export interface FlowLimits {
  maxDeferralMs: number;
  maxHttpTimeoutMs: number;
}

export const DEFAULT_FLOW_LIMITS: FlowLimits = Object.freeze({
  maxDeferralMs: 90 * 86_400_000,
  maxHttpTimeoutMs: 5 * 60_000,
});
