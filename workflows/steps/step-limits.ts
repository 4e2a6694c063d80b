// The engine's bounds (FLOWHOOK_MAX_DEFERRAL, FLOWHOOK_MAX_HTTP_TIMEOUT) as a
// running step sees them: publishing checked the literal values, these check
// the ones only known at run time (a waitUntil formula's instant).
import { formatDuration } from '../../common/duration.ts';
import { DEFAULT_FLOW_LIMITS, type FlowLimits } from '../../common/flow-limits.ts';
import { StepFailure } from '../../flow/step-failure.ts';
import type { StepCall } from './step-runner.ts';

/** Executions started before the engine handed limits in carry none: they get the defaults. */
export function limitsOf(call: StepCall): FlowLimits {
  return call.runtime.input.limits ?? DEFAULT_FLOW_LIMITS;
}

export function checkDeferral(ms: number, call: StepCall): void {
  const max = limitsOf(call).maxDeferralMs;
  if (ms > max)
    throw new StepFailure(
      `${call.label} failed: it would wait ${formatDuration(ms)}, longer than the allowed ${formatDuration(max)} (FLOWHOOK_MAX_DEFERRAL)`,
    );
}
