// waitForCallback: waits until someone calls back, or the timeout (its
// runner: workflows/steps/wait-for-callback-runner.ts). A deferral like
// sleep. Callbacks find their step by its name, so the name is required and
// unique among the flow's waitForCallback steps (callback-steps.ts lists
// them); with a key, an authenticated call naming the key resumes it instead
// of a one-time callback URL.
import { formatDuration, parseDuration } from '../../common/duration.ts';
import { checkText } from '../field-checks.ts';
import type { StepModel } from './step-model.ts';

export const waitForCallbackStep: StepModel<'waitForCallback'> = {
  kind: 'waitForCallback',
  defers: true,
  validate(wait, at, { errors, limits, scope }, name) {
    // `at` is `<step path>.waitForCallback`; the name is the step's own field.
    const nameAt = `${at.slice(0, at.lastIndexOf('.'))}.name`;
    if (!name) errors.push(`${nameAt}: required for a waitForCallback step (a callback finds its step by name)`);
    else {
      const first = scope.callbackSteps?.get(name);
      if (first && `${first.path}.waitForCallback` !== at)
        errors.push(
          `${nameAt}: "${name}" is the name of the waitForCallback step ${first.path} already; callbacks find their step by name, so it must be unique`,
        );
    }
    const ms = parseDuration(wait.timeout ?? '');
    if (!wait.timeout) errors.push(`${at}.timeout: required`);
    else if (typeof ms === 'string') errors.push(`${at}.timeout: ${ms}`);
    else if (ms < 1 || ms > limits.maxDeferralMs)
      errors.push(
        `${at}.timeout: between 1ms and ${formatDuration(limits.maxDeferralMs)} (the engine's FLOWHOOK_MAX_DEFERRAL)`,
      );
    checkText(wait.key, `${at}.key`, errors, scope);
    const status = wait.responseStatus ?? 0;
    if (status !== 0 && (!Number.isInteger(status) || status < 200 || status > 299))
      errors.push(`${at}.responseStatus: a 2xx status code (200..299), got ${JSON.stringify(status)}`);
  },
};
