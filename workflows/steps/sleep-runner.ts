// sleep: a durable timer of a fixed duration. A deferral: the sync window
// cannot be paused, so it fails while a caller still waits (the caller gets 500).
import { parseDuration } from '../../common/duration.ts';
import { deferralBeforeResponse, StepFailure } from '../../flow/step-failure.ts';
import { checkDeferral } from './step-limits.ts';
import type { StepRunner } from './step-runner.ts';

export const sleepRunner: StepRunner<'sleep'> = {
  kind: 'sleep',
  async run(sleep, call) {
    // The order of checks is part of the contract: which failure a bad step reports.
    const ms = parseDuration(sleep.duration ?? '');
    if (typeof ms === 'string') throw new StepFailure(`${call.label} failed: ${ms}`);
    checkDeferral(ms, call);
    if (call.runtime.window.isOpen) throw deferralBeforeResponse(call.label);
    if (call.position) call.services.showStep(call.position, new Date(Date.now() + ms).toISOString());
    await call.services.sleep(ms, { summary: call.label });
    return { output: { sleptMs: ms } };
  },
};
