// The request a piece of work belongs to, carried through async calls with
// AsyncLocalStorage, so every log line written while serving a request names
// it — also lines from code that knows nothing about requests (token checks,
// error mapping, database warnings). Facade and engine both use it.
import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestScope {
  requestId: string;
}

const scope = new AsyncLocalStorage<RequestScope>();

export function runInRequestScope<T>(requestId: string, work: () => T): T {
  return scope.run({ requestId }, work);
}

/** For pino's `mixin`: `{ requestId }` inside a request, nothing outside one. */
export function requestScopeFields(): { requestId?: string } {
  const current = scope.getStore();
  return current ? { requestId: current.requestId } : {};
}
