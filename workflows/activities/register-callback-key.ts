// The waitForCallback step's I/O in key mode: registering the key it waits
// for with the engine's CallbackService, so an authenticated resume naming the
// key finds this execution. Another execution already waiting for the same
// key is the flow's problem, not a transient one: not retried. The key itself
// is never quoted (it may be payload data); the engine's messages do not quote it either.
import { Code, ConnectError } from '@connectrpc/connect';
import { ApplicationFailure } from '@temporalio/activity';
import { isSensitive, markSensitive } from '../../flow/payload-converter.ts';
import type { CallbackClient } from './engine-client.ts';

export interface RegisterCallbackKeyInput {
  company: string;
  /** The flow's route key, as the trigger's `activity` names it (not a Temporal activity). */
  activity: string;
  executionId: string;
  /** The engine's grant for this execution and company (FlowExecutionInput.executionGrant). */
  executionGrant: string;
  /** The waitForCallback step's name. */
  step: string;
  key: string;
  /** The step's timeout: how long the key resumes it. */
  timeoutMs: number;
}

export interface RegisterCallbackKeyOutput {
  /** When the key stops resuming the step (epoch ms). */
  expiresAtMs: number;
}

export function createRegisterCallbackKeyActivity(client: CallbackClient) {
  return async function registerCallbackKey(input: RegisterCallbackKeyInput): Promise<RegisterCallbackKeyOutput> {
    // A doNotLogPayload execution's input arrives marked: what its resume delivers is encrypted in its history.
    const sensitive = isSensitive(input);
    try {
      const answer = await client.registerCallbackKey({ ...input, timeoutMs: BigInt(input.timeoutMs), sensitive });
      const output = { expiresAtMs: Number(answer.expiresAtMs) };
      return sensitive ? markSensitive(output) : output;
    } catch (error) {
      throw asFailure(error);
    }
  };
}

function asFailure(error: unknown): ApplicationFailure {
  if (!(error instanceof ConnectError))
    return ApplicationFailure.retryable(
      'the engine could not be asked to register the callback key',
      'CallbackKeyFailed',
    );
  switch (error.code) {
    case Code.FailedPrecondition:
      return ApplicationFailure.nonRetryable(error.rawMessage, 'CallbackKeyTaken');
    case Code.InvalidArgument:
    case Code.PermissionDenied:
    case Code.NotFound:
      return ApplicationFailure.nonRetryable(error.rawMessage, 'CallbackKeyRefused');
    default:
      return ApplicationFailure.retryable(
        `the engine could not register the callback key (${error.rawMessage})`,
        'EngineUnavailable',
      );
  }
}
