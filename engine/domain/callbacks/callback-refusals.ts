// Why a callback was refused, for the engine's one `callback refused` log line
// (the sender sees only the error's message: one NOT_FOUND text for every kind
// of miss, so an unknown token, a timed-out step and an ended execution look
// alike). The errors are the engine's usual classes, so the one interceptor
// maps them to Connect codes.
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from '../../errors.ts';

export type CallbackRoute = 'url' | 'key';

export type CallbackRefusalReason =
  | 'malformed_token'
  | 'body_not_utf8'
  | 'body_too_deep'
  | 'unknown_token'
  | 'unknown_key'
  | 'key_expired'
  | 'step_expired'
  | 'unknown_step'
  | 'execution_closed'
  | 'already_used';

export interface CallbackRefusal {
  reason: CallbackRefusalReason;
  /** Known once a stored wait was found (never the token, key or body). */
  executionId?: string;
  step?: string;
}

export const NO_CALLBACK_AT_URL = 'No callback waits at this URL';
export const NO_EXECUTION_WAITS_FOR_KEY = 'No execution of this flow waits for this key';
export const URL_ALREADY_USED = 'This callback URL has already been used';
export const KEY_ALREADY_USED = 'The step waiting for this key has already received a callback';

export class CallbackNotFoundError extends NotFoundError {
  readonly refusal: CallbackRefusal;

  constructor(message: string, refusal: CallbackRefusal) {
    super(message);
    this.refusal = refusal;
  }
}

export class CallbackUsedError extends FailedPreconditionError {
  readonly refusal: CallbackRefusal;

  constructor(message: string, refusal: CallbackRefusal) {
    super(message);
    this.refusal = refusal;
  }
}

export class CallbackInvalidError extends InvalidArgumentError {
  readonly refusal: CallbackRefusal;

  constructor(message: string, refusal: CallbackRefusal) {
    super(message);
    this.refusal = refusal;
  }
}

export function refusalOf(error: unknown): CallbackRefusal | undefined {
  return error instanceof CallbackNotFoundError ||
    error instanceof CallbackUsedError ||
    error instanceof CallbackInvalidError
    ? error.refusal
    : undefined;
}
