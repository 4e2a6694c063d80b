// The request a piece of work belongs to, carried through async calls with
// AsyncLocalStorage, so every log line written while serving a request names
// it — also lines from code that knows nothing about requests (token checks,
// error mapping, database warnings). Facade and engine both use it.
import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestScope {
  requestId: string;
}

const scope = new AsyncLocalStorage<RequestScope>();

/** Ids short enough to log and unable to forge log structure; a caller's own id is used only when it fits. */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function runInRequestScope<T>(requestId: string, work: () => T): T {
  return scope.run({ requestId }, work);
}

/** For pino's `mixin`: `{ requestId }` inside a request, nothing outside one. */
export function requestScopeFields(): { requestId?: string } {
  const current = scope.getStore();
  return current ? { requestId: current.requestId } : {};
}
