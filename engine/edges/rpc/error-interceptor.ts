// The engine's one mapping from domain errors to Connect codes. Anything that
// is not a known domain error becomes Internal with a generic message: its
// text might hold details not meant for a caller, so only the log sees it.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { DriverException } from '@mikro-orm/core';
import type { Logger } from 'pino';
import { RETRY_AFTER_METADATA } from '../../common/rpc-metadata.ts';
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
} from '../errors.ts';

const CODES: [new (...args: never[]) => Error, Code][] = [
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

export function toConnectError(error: unknown, logger: Logger, method: string): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof RateLimitedError) {
    // The wait travels as metadata, so the facade can answer with Retry-After.
    return new ConnectError(error.message, Code.ResourceExhausted, { [RETRY_AFTER_METADATA]: String(error.retryAfterSeconds) });
  }
  for (const [type, code] of CODES) {
    if (error instanceof type) return new ConnectError((error as Error).message, code);
  }
  if (error instanceof DriverException || isConnectionFailure(error)) {
    logger.error({ method, err: describe(error) }, 'database unavailable');
    return new ConnectError('PostgreSQL is unavailable', Code.Unavailable);
  }
  logger.error({ method, err: describe(error) }, 'internal error');
  return new ConnectError('Internal error', Code.Internal);
}

/** The code `toConnectError` gives an error, without logging or building one (for metrics). */
export function engineCode(error: unknown): Code {
  if (error instanceof ConnectError) return error.code;
  if (error instanceof RateLimitedError) return Code.ResourceExhausted;
  for (const [type, code] of CODES) {
    if (error instanceof type) return code;
  }
  return error instanceof DriverException || isConnectionFailure(error) ? Code.Unavailable : Code.Internal;
}

/** Connection-level failures from the pg driver (refused, reset, timed out). */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || /timeout exceeded when trying to connect|Connection terminated/i.test(message);
}

/** Name and first line only: stacks and driver parameters stay out of the log. */
function describe(error: unknown): { type: string; message: string } {
  if (error instanceof Error) return { type: error.name, message: error.message.split('\n')[0] ?? '' };
  return { type: typeof error, message: '' };
}

export function errorInterceptor(logger: Logger): Interceptor {
  return (next) => async (request) => {
    try {
      return await next(request);
    } catch (error) {
      throw toConnectError(error, logger, request.method.name);
    }
  };
}
