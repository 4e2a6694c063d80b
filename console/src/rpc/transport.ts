// The transport the pages call the engine with: the Connect protocol to
// the console's own origin (no CORS: the pages and the RPCs share it), the
// session cookie sent by the browser (HttpOnly: no script here sees it), and
// the session's CSRF token in a header on every call (console-gate.ts on the
// engine). A call answered "unauthenticated" means the session ended
// (expired, signed out elsewhere, its admin token rotated): the page goes
// back to the sign-in form. main.tsx makes the one transport and hands it to
// the pages through connect-query's TransportProvider: no page holds a client
// of its own, so a test gives them an in-memory engine (createRouterTransport).
import { Code, ConnectError, type Interceptor, type Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';

export const CSRF_HEADER = 'x-flowhook-csrf';

let csrfToken = '';
const sessionEndedListeners = new Set<() => void>();

/** Set from GetSession's or SignIn's answer; kept in memory only (never in browser storage). */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export function onSessionEnded(listener: () => void): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}

const csrf: Interceptor = (next) => (request) => {
  if (csrfToken) request.header.set(CSRF_HEADER, csrfToken);
  return next(request);
};

const sessionEnd: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    if (
      error instanceof ConnectError &&
      error.code === Code.Unauthenticated &&
      request.service.typeName !== 'flowhook.engine.v1.ConsoleService'
    ) {
      csrfToken = '';
      for (const listener of sessionEndedListeners) listener();
    }
    throw error;
  }
};

/** The Connect transport to the origin that served the page. */
export function createConsoleTransport(origin: string): Transport {
  return createConnectTransport({
    baseUrl: origin,
    interceptors: [csrf, sessionEnd],
    // Same-origin requests carry the session cookie; nothing else is ever sent anywhere.
    fetch: (input, init) => fetch(input, { ...init, credentials: 'same-origin' }),
  });
}

/** A failure's message as a person reads it: Connect's own, without the code prefix. */
export function messageOf(error: unknown): string {
  if (error instanceof ConnectError) return error.rawMessage;
  return error instanceof Error ? error.message : String(error);
}
