// The alert workflow's activities: each one call to the engine's
// AlertCheckService with the worker's records-scope token. The engine counts
// and sends; these never see a connection secret nor a word of the message.
// A rule that is gone answers null (the workflow ends); a channel that
// refused the message for good fails without retrying; anything else (an
// engine outage, a channel that is down) is retried by Temporal.
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { ApplicationFailure } from '@temporalio/activity';
import { AlertState, type AlertCheckService } from '../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import type { AlertNotification } from '../../flow/alert-state.ts';

export type AlertCheckClient = Client<typeof AlertCheckService>;

export interface AlertRuleRef {
  company: string;
  name: string;
  ruleId: string;
}

export interface AlertEvaluation {
  count: number;
  threshold: number;
  intervalMs: number;
}

export function createAlertActivities(client: AlertCheckClient) {
  return {
    async evaluateAlert(rule: AlertRuleRef): Promise<AlertEvaluation | null> {
      try {
        const answer = await client.evaluateAlert(rule);
        return { count: answer.count, threshold: answer.threshold, intervalMs: answer.intervalMs };
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.NotFound) return null;
        throw asFailure(error, 'evaluate');
      }
    },
    /** Whether it was sent now (false: sent before); null when the rule is gone. */
    async sendAlert(input: AlertRuleRef & AlertNotification): Promise<boolean | null> {
      try {
        const answer = await client.sendAlert({
          company: input.company,
          name: input.name,
          ruleId: input.ruleId,
          state: input.state === 'firing' ? AlertState.FIRING : AlertState.OK,
          incident: input.incident,
          count: input.count,
        });
        return answer.sent;
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.NotFound) return null;
        throw asFailure(error, 'send');
      }
    },
  };
}

export type AlertActivities = ReturnType<typeof createAlertActivities>;

function asFailure(error: unknown, what: string): ApplicationFailure {
  if (!(error instanceof ConnectError)) return ApplicationFailure.retryable(`alert ${what} failed`, 'AlertFailed');
  const message = `alert ${what}: ${error.rawMessage}`;
  return error.code === Code.FailedPrecondition || error.code === Code.InvalidArgument
    ? ApplicationFailure.nonRetryable(message, 'AlertRefused')
    : ApplicationFailure.retryable(message, 'AlertUnavailable');
}
