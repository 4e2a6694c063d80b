// Runs each RPC in the request scope of the id the facade sends with a
// webhook call, so every engine log line about that call — including error
// and database lines written far from the webhook code — names the request.
import type { Interceptor } from '@connectrpc/connect';
// The facade only sends ids it generated or checked; anything else is not trusted into logs.
import { runInRequestScope, SAFE_REQUEST_ID } from '../../../common/request-scope.ts';

export function requestScopeInterceptor(): Interceptor {
  return (next) => (request) => {
    const requestId = request.stream ? undefined : (request.message as { requestId?: unknown }).requestId;
    if (typeof requestId !== 'string' || !SAFE_REQUEST_ID.test(requestId)) return next(request);
    return runInRequestScope(requestId, () => next(request));
  };
}
