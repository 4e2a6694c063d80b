// Wrappers that measure the webhook path's admission control and sync waits
// without the limits or the starter knowing about metrics.
import { RateLimitedError } from '../../errors.ts';
import { engineCode } from '../../error-codes.ts';
import { LimitRefusedError, type WebhookLimits } from '../limits/webhook-limits.ts';
import type { ExecutionStarter } from '../executions/execution-starter.ts';
import type { CallOutcome } from '../../../common/metrics/call-labels.ts';
import type { EngineMetrics, RateLimitKind } from './engine-metrics.ts';
import { Code } from '@connectrpc/connect';

export function meteredLimits(limits: WebhookLimits, metrics: EngineMetrics): WebhookLimits {
  const counted = <T>(kind: RateLimitKind, admit: () => T): T => {
    try {
      return admit();
    } catch (error) {
      // admitActivity checks three limits; the refusal names the one that refused.
      if (error instanceof RateLimitedError)
        metrics.rateLimited(error instanceof LimitRefusedError ? error.limit : kind);
      throw error;
    }
  };
  return {
    admitCaller: (caller) => counted('caller', () => limits.admitCaller(caller)),
    admitActivity: (company, activity) => counted('activity', () => limits.admitActivity(company, activity)),
    admitHookRoute: (company, activity) => counted('hook_route', () => limits.admitHookRoute(company, activity)),
    admitCallback: (sender) => counted('callbacks', () => limits.admitCallback(sender)),
    chargeCallbackMiss: (sender) => limits.chargeCallbackMiss(sender),
    acquireSyncSlot: () => counted('sync_calls', () => limits.acquireSyncSlot()),
  };
}

const ANSWERED: Readonly<Record<string, CallOutcome>> = {
  RESPONDED: 'responded',
  SYNC_TIMEOUT: 'sync_timeout',
  FLOW_ENDED: 'flow_ended',
};

export function meteredStarter(starter: ExecutionStarter, metrics: EngineMetrics): ExecutionStarter {
  const counted = <T>(start: () => Promise<T>): Promise<T> =>
    start().catch((error: unknown) => {
      // Flow control's cap on waiting executions refuses in the starter (engine/domain/flow-control/gate-backlogs.ts).
      if (error instanceof LimitRefusedError) metrics.rateLimited(error.limit);
      throw error;
    });
  return {
    startInstant: (request) => counted(() => starter.startInstant(request)),
    startTimeOf: starter.startTimeOf,
    async startAndWait(request) {
      const sent = performance.now();
      metrics.syncWait.begin();
      let outcome: CallOutcome = 'failed';
      try {
        const answer = await counted(() => starter.startAndWait(request));
        outcome = ANSWERED[answer.outcome] ?? 'failed';
        return answer;
      } catch (error) {
        // A reused idempotency key is the caller's mistake; Temporal trouble and a flow that failed are failures.
        if (engineCode(error) === Code.AlreadyExists) outcome = 'refused';
        throw error;
      } finally {
        metrics.syncWait.end(outcome, (performance.now() - sent) / 1000);
      }
    },
  };
}
