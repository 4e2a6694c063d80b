// The RPC edge's answer to a failed call, by the one table of codes (error-codes.ts). Anything that
// is not a known domain error becomes Internal with a generic message: its text might hold details
// not meant for a caller, so only the log sees it.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { RETRY_AFTER_METADATA } from '../../../common/rpc-metadata.ts';
import { RateLimitedError } from '../../errors.ts';
import { domainCode, isDatabaseUnavailable } from '../../error-codes.ts';

export function toConnectError(error: unknown, logger: Logger, method: string): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof RateLimitedError) {
    // The wait travels as metadata, so the facade can answer with Retry-After.
    return new ConnectError(error.message, Code.ResourceExhausted, {
      [RETRY_AFTER_METADATA]: String(error.retryAfterSeconds),
    });
  }
  const code = domainCode(error);
  if (code !== undefined) return new ConnectError((error as Error).message, code);
  if (isDatabaseUnavailable(error)) {
    logger.error({ method, err: describe(error) }, 'database unavailable');
    return new ConnectError('PostgreSQL is unavailable', Code.Unavailable);
  }
  logger.error({ method, err: describe(error) }, 'internal error');
  return new ConnectError('Internal error', Code.Internal);
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
