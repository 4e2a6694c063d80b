// The Connect code of each domain error (errors.ts), in one table: the RPC edge answers with it
// (edges/rpc/error-interceptor.ts) and the metrics count by it, so both always agree. Anything that
// is not a known domain error is Internal, or Unavailable when PostgreSQL cannot be reached.
import { Code, ConnectError } from '@connectrpc/connect';
import { DriverException } from '@mikro-orm/core';
import {
  AlreadyExistsError,
  ConflictError,
  FailedPreconditionError,
  FlowFailedError,
  InvalidArgumentError,
  NotFoundError,
  CallTooLargeError,
  PermissionDeniedError,
  RateLimitedError,
  UnauthenticatedError,
  UnavailableError,
} from './errors.ts';

const CODES: [new (...args: never[]) => Error, Code][] = [
  // First: the wait it carries makes it more than the error it may extend.
  [RateLimitedError, Code.ResourceExhausted],
  [InvalidArgumentError, Code.InvalidArgument],
  [NotFoundError, Code.NotFound],
  [AlreadyExistsError, Code.AlreadyExists],
  [UnauthenticatedError, Code.Unauthenticated],
  [PermissionDeniedError, Code.PermissionDenied],
  [FailedPreconditionError, Code.FailedPrecondition],
  [ConflictError, Code.Aborted],
  [FlowFailedError, Code.Internal],
  [UnavailableError, Code.Unavailable],
  // Past the size the call may have where it is going (the facade answers 413).
  [CallTooLargeError, Code.OutOfRange],
];

/** The code of a domain error (its message is meant for the caller), or undefined for anything else. */
export function domainCode(error: unknown): Code | undefined {
  for (const [type, code] of CODES) {
    if (error instanceof type) return code;
  }
  return undefined;
}

/** The code the engine answers an error with, without logging or building one (for metrics). */
export function engineCode(error: unknown): Code {
  if (error instanceof ConnectError) return error.code;
  return domainCode(error) ?? (isDatabaseUnavailable(error) ? Code.Unavailable : Code.Internal);
}

/** A driver error, or a connection-level failure of the pg driver (refused, reset, timed out). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DriverException) return true;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ETIMEDOUT' ||
    /timeout exceeded when trying to connect|Connection terminated/i.test(message)
  );
}
