// Small typed errors the engine's domain code throws. One interceptor
// (rpc/error-interceptor.ts) turns them into Connect codes; their messages are
// written for the caller and never contain a secret, key or payload.
import type { RefusalReason } from '../common/refusal-reasons.ts';

export class EngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidArgumentError extends EngineError {}
export class NotFoundError extends EngineError {}
export class AlreadyExistsError extends EngineError {}
/**
 * Wrong credentials or a wrong secret: the caller sees only "Unauthorized".
 * `reason` is for the engine's one `call refused` log line and never travels
 * to the caller (the error interceptor sends the message alone).
 */
export class UnauthenticatedError extends EngineError {
  readonly reason: RefusalReason | undefined;

  constructor(message: string, reason?: RefusalReason) {
    super(message);
    this.reason = reason;
  }
}
/** The caller may not do this; on the webhook path `refusal` names the missing permission set for the log line. */
export class PermissionDeniedError extends EngineError {
  readonly reason: RefusalReason | undefined;
  readonly permissionSet: string | undefined;

  constructor(message: string, refusal?: { reason: RefusalReason; permissionSet?: string }) {
    super(message);
    this.reason = refusal?.reason;
    this.permissionSet = refusal?.permissionSet;
  }
}
export class FailedPreconditionError extends EngineError {}
/** A write lost an optimistic-concurrency race or found another version than expected. */
export class ConflictError extends EngineError {}
/** The flow failed (or deferred) before it responded inside the sync window: a 500 for the caller. */
export class FlowFailedError extends EngineError {}
/** A dependency (Temporal, PostgreSQL) could not be reached in time. */
export class UnavailableError extends EngineError {}
/** A rate limit or the sync-call cap refused the call; nothing started. */
export class RateLimitedError extends EngineError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
/** The call is larger than what it would become may be (a debounce or batch window's execution input): a 413, nothing collected. */
export class CallTooLargeError extends EngineError {}
/** An Idempotency-Key came again with another payload: a 422, nothing started. */
export class IdempotencyKeyReusedError extends AlreadyExistsError {}
