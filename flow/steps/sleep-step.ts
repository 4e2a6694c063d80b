// sleep: a durable timer of a fixed duration (its runner:
// workflows/steps/sleep-runner.ts). A deferral: the sync window cannot be
// paused, so it fails while a caller still waits (the caller gets 500).
import { formatDuration, parseDuration } from '../../common/duration.ts';
import type { StepModel } from './step-model.ts';

export const sleepStep: StepModel<'sleep'> = {
  kind: 'sleep',
  defers: true,
  validate(sleep, at, { errors, limits }) {
    const ms = parseDuration(sleep.duration ?? '');
    if (typeof ms === 'string') errors.push(`${at}.duration: ${ms}`);
    else if (ms > limits.maxDeferralMs)
      errors.push(
        `${at}.duration: at most ${formatDuration(limits.maxDeferralMs)} (the engine's FLOWHOOK_MAX_DEFERRAL)`,
      );
  },
};
