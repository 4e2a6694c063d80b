// Activities of doNotLogPayload executions: their input arrives marked (it was
// read from an encrypted payload), so their result is marked too and gets
// encrypted on the way back. Their failure messages could quote payload data
// and would reach Temporal history and the worker log: those are withheld,
// keeping type and retry behaviour.
import { ApplicationFailure } from '@temporalio/activity';
import { isSensitive, markSensitive } from '../../flow/payload-converter.ts';

export const WITHHELD = 'details withheld (doNotLogPayload)';

export function sensitiveAware<I, O>(activity: (input: I) => Promise<O>): (input: I) => Promise<O> {
  return async (input) => {
    if (!isSensitive(input)) return activity(input);
    try {
      return markSensitive(await activity(input));
    } catch (error) {
      const failure = error instanceof ApplicationFailure ? error : undefined;
      throw ApplicationFailure.create({
        message: WITHHELD,
        type: failure?.type ?? 'ActivityFailed',
        nonRetryable: failure?.nonRetryable ?? false,
      });
    }
  };
}
