// The sign-in routes of the codec server. The session cookie is HttpOnly (no
// page script reads it), SameSite=Strict (sent only from pages of the same
// site: the UI on the same host name), Secure under TLS, and short-lived.
// Sign-in and sign-out are POSTs whose Origin must be the codec server's own
// page: another site cannot sign an operator in or out (login CSRF).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { header, HttpRefusal, mediaType, pageHeaders, readBody, sendText } from '../http/http-answers.ts';
import type { CodecServerConfig } from './codec-config.ts';
import { adminOfToken, type CodecAuthDeps } from './codec-auth.ts';
import type { CodecSessions } from './codec-sessions.ts';
import { LOGIN_PAGE_CSP, loginPage, type LoginPageView } from './login-page.ts';

const MAX_FORM_BYTES = 4096;

export interface LoginContext {
  config: CodecServerConfig;
  auth: CodecAuthDeps;
  sessions: CodecSessions;
  logger: Logger;
  secure: boolean;
}

export function showLogin(request: IncomingMessage, response: ServerResponse, context: LoginContext): void {
  // A top-level navigation carries no Origin; showing whose session this is reveals nothing to another site (no framing, SameSite=Strict).
  const sessionId = context.auth.cookie.valueIn(header(request, 'cookie'));
  const session = sessionId ? context.sessions.find(sessionId) : undefined;
  const signedInAs = session ? { name: session.operator.name, until: new Date(session.expiresAt) } : undefined;
  sendPage(response, 200, { ...view(request, context), signedInAs });
}

export async function handleLogin(
  request: IncomingMessage,
  response: ServerResponse,
  context: LoginContext,
): Promise<void> {
  checkOwnOrigin(request, context);
  if (mediaType(request) !== 'application/x-www-form-urlencoded')
    throw new HttpRefusal(415, 'sign in with the form of this page');
  const token = new URLSearchParams(await readBody(request, MAX_FORM_BYTES)).get('token')?.trim() ?? '';
  const admin = token ? await adminOfToken(token, context.auth.accounts) : undefined;
  if (!admin) {
    context.logger.warn('codec server: sign-in refused');
    return sendPage(response, 401, {
      ...view(request, context),
      problem: 'Not signed in: that is not an enabled admin-scope service account token or FLOWHOOK_ADMIN_TOKEN.',
    });
  }
  const { cookieValue: value } = context.sessions.open(admin.operator, admin.credential);
  context.logger.info(
    { operator: admin.operator.name, ttlSeconds: context.sessions.ttlMs / 1000 },
    'codec server: operator signed in',
  );
  // Post/redirect/get: a reload does not send the token again.
  sendText(response, 303, '', {
    location: '/login',
    'set-cookie': context.auth.cookie.set(value, context.sessions.ttlMs),
  });
}

export function handleLogout(request: IncomingMessage, response: ServerResponse, context: LoginContext): void {
  checkOwnOrigin(request, context);
  const sessionId = context.auth.cookie.valueIn(header(request, 'cookie'));
  if (sessionId) context.sessions.close(sessionId);
  sendText(response, 303, '', { location: '/login', 'set-cookie': context.auth.cookie.clear() });
}

/** Browsers send Origin with every form POST; it must be this server, as the browser addressed it. */
function checkOwnOrigin(request: IncomingMessage, context: LoginContext): void {
  const origin = header(request, 'origin');
  if (!origin || origin !== ownOrigin(request, context))
    throw new HttpRefusal(403, "sign in and out with the form of the codec server's own /login page");
}

function ownOrigin(request: IncomingMessage, context: LoginContext): string {
  return `${context.secure ? 'https' : 'http'}://${header(request, 'host') ?? ''}`;
}

function view(request: IncomingMessage, context: LoginContext): LoginPageView {
  return { codecUrl: ownOrigin(request, context), uiOrigins: context.config.allowedOrigins };
}

function sendPage(response: ServerResponse, status: number, page: LoginPageView): void {
  sendText(response, status, loginPage(page), {
    'content-type': 'text/html; charset=utf-8',
    ...pageHeaders(LOGIN_PAGE_CSP),
  });
}
