// Gives each request an id (echoed as `x-request-id`, sent to the engine so
// facade and engine log lines correlate) and writes one log line when the
// response is done. The line holds chosen fields only: never the body, the
// query string, headers or credentials — nor a callback URL's token, which is
// a credential in the path (callbacks-route.ts).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { FacadeMiddleware } from './facade-context.ts';
import { runInRequestScope, SAFE_REQUEST_ID } from '../common/request-scope.ts';
import { loggablePath } from './callbacks-route.ts';

export const REQUEST_ID_HEADER = 'x-request-id';

export function requestIdFor(supplied: string | undefined): string {
  return supplied && SAFE_REQUEST_ID.test(supplied) ? supplied : randomUUID();
}

export function requestContext(logger: Logger): FacadeMiddleware {
  return async function trackRequest(ctx, next) {
    const started = performance.now();
    const requestId = requestIdFor(ctx.get(REQUEST_ID_HEADER));
    ctx.state.requestId = requestId;
    ctx.set(REQUEST_ID_HEADER, requestId);
    // Logged on 'close' so the line carries the final status, which the error
    // mapping (outside this middleware) sets after this one has returned.
    ctx.res.once('close', () => {
      logger.info(
        {
          requestId,
          method: ctx.method,
          path: loggablePath(ctx.path),
          status: ctx.status,
          ms: Math.round(performance.now() - started),
          executionId: ctx.state.executionId,
          error: ctx.state.errorCode,
          aborted: ctx.res.writableFinished ? undefined : true,
        },
        'request',
      );
    });
    // Every line logged while serving this request (token checks, error mapping) carries its id.
    await runInRequestScope(requestId, next);
  };
}
