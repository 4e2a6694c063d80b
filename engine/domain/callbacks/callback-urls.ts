// The callback URLs of one outbound request (OutboundService.ResolveOutbound
// with callback_steps): a fresh token per step and call, stored only as its
// digest. A retried activity gets new URLs and the old ones stay valid: the
// sender may have received either, and the step takes one callback whichever
// URL carries it. The URLs go back in the response and nowhere else.
import type { EntityManager } from '@mikro-orm/postgresql';
import { InvalidArgumentError } from '../../errors.ts';
import { tokenLookup } from './callback-digests.ts';
import { activityOfExecution, checkStepName } from './callback-scope.ts';
import { callbackUrl, mintCallbackToken } from './callback-tokens.ts';
import { insertUrlWaits, type NewWait } from './callback-waits.ts';

export interface CallbackUrlTarget {
  publicUrl: string;
  instance: string;
}

export interface CallbackUrlRequest {
  company: string;
  executionId: string;
  callbackSteps: readonly string[];
  callbacksSensitive: boolean;
}

/** Most waitForCallback steps one request can name: a guard against a runaway list, far above any flow. */
const MAX_CALLBACK_STEPS = 100;

/** Step → URL. The caller has checked the execution's grant and that it runs (security/execution-access.ts: requireLiveGrant). */
export async function mintCallbackUrls(
  em: EntityManager,
  target: CallbackUrlTarget,
  request: CallbackUrlRequest,
): Promise<Record<string, string>> {
  const steps = [...new Set(request.callbackSteps)];
  if (steps.length > MAX_CALLBACK_STEPS)
    throw new InvalidArgumentError(`at most ${MAX_CALLBACK_STEPS} callback steps per request`);
  for (const step of steps) checkStepName(step);
  const urls: Record<string, string> = {};
  const waits: NewWait[] = [];
  const activity = activityOfExecution(request.executionId);
  for (const step of steps) {
    const token = mintCallbackToken();
    waits.push({
      lookup: tokenLookup(token),
      company: request.company,
      activity,
      executionId: request.executionId,
      step,
      sensitive: request.callbacksSensitive,
    });
    urls[step] = callbackUrl(target, token);
  }
  // Stored before the URLs leave: a sender that calls back at once finds its wait.
  await insertUrlWaits(em, waits, new Date());
  return urls;
}
