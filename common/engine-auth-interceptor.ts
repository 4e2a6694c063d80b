// What every flowhook client of the engine (facade, worker, CLI) puts on each
// call: its service account token, and the request id as a header too — the
// engine's gate judges a call on its headers before it reads the message, so a
// refusal can still be logged under the caller's request id.
import type { Interceptor } from '@connectrpc/connect';
import { REQUEST_ID_HEADER } from './rpc-metadata.ts';

export function engineAuthInterceptor(token: string): Interceptor {
  return (next) => (request) => {
    request.header.set('authorization', `Bearer ${token}`);
    const requestId = request.stream ? undefined : (request.message as { requestId?: unknown }).requestId;
    if (typeof requestId === 'string' && requestId !== '') request.header.set(REQUEST_ID_HEADER, requestId);
    return next(request);
  };
}
