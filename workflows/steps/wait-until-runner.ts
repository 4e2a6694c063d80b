// waitUntil: a durable timer until an instant, literal or computed. A
// deferral like sleep; an instant already past does not wait (no timer).
import { resolveValue } from '../../flow/formula/index.ts';
import { deferralBeforeResponse, StepFailure } from '../../flow/step-failure.ts';
import { checkDeferral } from './step-limits.ts';
import type { StepRunner } from './step-runner.ts';

export const waitUntilRunner: StepRunner<'waitUntil'> = {
  kind: 'waitUntil',
  async run(waitUntil, call) {
    const until = await resolveValue(waitUntil.until ?? '', call.runtime.context);
    const at = typeof until === 'number' ? until : Date.parse(String(until));
    if (Number.isNaN(at)) throw new StepFailure(`${call.label} failed: ${JSON.stringify(until)} is not a timestamp`);
    if (call.runtime.window.isOpen) throw deferralBeforeResponse(call.label);
    const ms = Math.max(0, at - Date.now());
    checkDeferral(ms, call);
    if (ms > 0 && call.position) call.services.showStep(call.position, new Date(at).toISOString());
    if (ms > 0) await call.services.sleep(ms, { summary: call.label });
    return { output: { until: new Date(at).toISOString(), waitedMs: ms } };
  },
};
