// The console's front door for calls, like the engine's service account gate:
// checked on the request's headers alone, before Connect reads a body.
//   1. the call comes from a page of the console (console-request-checks.ts);
//   2. the session cookie names a live session — and one opened with an admin
//      token still holds: that token not rotated, its account enabled and
//      admin (asked of the service account directory, which the change feed
//      keeps current on every engine); an OpenID Connect session whose roles
//      are due for a re-check is re-checked at the provider (session-recheck.ts);
//      a session that no longer holds ends;
//   3. every call but GetSession and SignIn needs that session, and the CSRF
//      token of it in the x-flowhook-csrf header (console-csrf.ts).
// What each person may call is the interceptor's business
// (console-authorization.ts); the session travels to it as a context value.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createContextKey, type ContextValues } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { ConsoleService } from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { AUDIT_PERSON, CONSOLE_GRANTS, serviceAccountValues } from '../../domain/callers/call-context.ts';
import type { ServiceAccountDirectory } from '../../domain/callers/service-account-directory.ts';
import { stillAdminByMac } from '../../domain/callers/admin-credentials.ts';
import type { BrowserCookie } from '../http/browser-sessions.ts';
import { header } from '../http/http-answers.ts';
import type { ServiceAccountIdentity } from '../../domain/callers/service-account-tokens.ts';
import { CSRF_HEADER, csrfMatches } from './console-csrf.ts';
import { refusalOfCall, type ConsoleSite } from './console-request-checks.ts';
import { EVERY_COMPANY } from '../../domain/callers/console-roles.ts';
import type { ConsoleIdentity, ConsoleSessions, FoundSession } from './console-sessions.ts';
import type { SessionRecheck } from './session-recheck.ts';
import { senderOfSocket } from './sign-in-limiter.ts';

/** What the gate found out about one call, for the interceptor and ConsoleService. */
export interface ConsoleCall {
  /** The live session the cookie names. */
  session?: FoundSession;
  /** The cookie named a session that is gone (expired, signed out, its token rotated): the answer clears it. */
  staleCookie: boolean;
  /** Who sent the call, as the sign-in limits count senders (sign-in-limiter.ts); empty off the console's listener. */
  sender: string;
}

export const CONSOLE_CALL = createContextKey<ConsoleCall>(
  { staleCookie: false, sender: '' },
  { description: "the console call's session" },
);

/** Calls that make sense without a session. */
const SESSION_FREE = new Set([`${ConsoleService.typeName}/GetSession`, `${ConsoleService.typeName}/SignIn`]);

export interface ConsoleGateDeps {
  site: ConsoleSite;
  sessions: ConsoleSessions;
  accounts: ServiceAccountDirectory;
  csrfKey: Buffer;
  /** The `console-session` deployment key admin-token sessions keep their token's keyed hash under. */
  credentialKey: Buffer;
  /** Set with OpenID Connect: re-reads a session's roles at the provider when due. */
  recheck?: SessionRecheck;
  cookie: BrowserCookie;
  logger: Logger;
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

const calls = new WeakMap<IncomingMessage, ConsoleCall>();

/** connectNodeAdapter's `contextValues`: the session, the account it acts as, the person for the audit log. */
export function consoleCallContext(req: unknown): ContextValues {
  const call = calls.get(req as IncomingMessage) ?? { staleCookie: false, sender: '' };
  const values = serviceAccountValues(call.session && actingAccount(call.session.identity));
  values.set(CONSOLE_CALL, call);
  if (call.session)
    values.set(AUDIT_PERSON, call.session.identity.person).set(CONSOLE_GRANTS, call.session.identity.roles);
  return values;
}

export function consoleGate(handler: NodeHandler, deps: ConsoleGateDeps): NodeHandler {
  return (req, res) => {
    void admit(req, deps).then(
      (verdict) => {
        if ('call' in verdict) {
          calls.set(req, verdict.call);
          handler(req, res);
          return;
        }
        deps.logger.warn({ method: req.url, reason: verdict.reason }, 'console call refused');
        refuse(res, verdict.code, verdict.message);
      },
      (error: unknown) => {
        deps.logger.error(
          { method: req.url, reason: error instanceof Error ? error.message : String(error) },
          'console session lookup failed',
        );
        refuse(res, 'unavailable', 'the console cannot check its sessions right now');
      },
    );
  };
}

type Verdict =
  { call: ConsoleCall } | { code: 'unauthenticated' | 'permission_denied'; message: string; reason: string };

async function admit(req: IncomingMessage, deps: ConsoleGateDeps): Promise<Verdict> {
  const refusal = refusalOfCall(deps.site, {
    host: header(req, 'host'),
    origin: header(req, 'origin'),
    secFetchSite: header(req, 'sec-fetch-site'),
  });
  if (refusal) return { code: 'permission_denied', message: refusal, reason: 'console_origin' };
  const cookie = deps.cookie.valueIn(header(req, 'cookie'));
  const session = cookie === undefined ? undefined : await liveSession(cookie, deps);
  const call: ConsoleCall = {
    session,
    staleCookie: cookie !== undefined && session === undefined,
    sender: senderOfSocket(req.socket.remoteAddress),
  };
  if (SESSION_FREE.has(rpcName(req.url ?? ''))) return { call };
  if (!session)
    return {
      code: 'unauthenticated',
      message: 'sign in to the console first (your session ended or never began)',
      reason: 'console_session_missing',
    };
  if (!csrfMatches(deps.csrfKey, session.key, header(req, CSRF_HEADER))) {
    return {
      code: 'permission_denied',
      message: `the call lacks this session's CSRF token (${CSRF_HEADER}): reload the console`,
      reason: 'console_csrf',
    };
  }
  return { call };
}

/** The session, if it exists, has not expired, (admin-token sessions) its token still opens the admin services, and (OIDC) its roles are current. */
async function liveSession(cookie: string, deps: ConsoleGateDeps): Promise<FoundSession | undefined> {
  const session = await deps.sessions.find(cookie);
  if (!session) return undefined;
  const { identity } = session;
  if (identity.via === 'oidc') return deps.recheck ? deps.recheck.current(session) : session;
  const held = identity.tokenMac === undefined ? undefined : { account: identity.account, tokenMac: identity.tokenMac };
  if (!held || !(await stillAdminByMac(deps.accounts, deps.credentialKey, held))) {
    await deps.sessions.close(session.key);
    deps.logger.info(
      { person: identity.person },
      'console session ended: its admin token was rotated or its account disabled, deleted or demoted',
    );
    return undefined;
  }
  return session;
}

/** The account a console call acts as, for the services and the audit log's account column. */
function actingAccount(identity: ConsoleIdentity): ServiceAccountIdentity {
  return {
    name: identity.account,
    scope: 'admin',
    allCompanies: Object.hasOwn(identity.roles, EVERY_COMPANY),
    companyIds: [],
    forwardsCallers: false,
  };
}

/** `/flowhook.engine.v1.ConsoleService/SignIn` → `flowhook.engine.v1.ConsoleService/SignIn`. */
function rpcName(url: string): string {
  return url.split('?')[0]!.slice(1);
}

const HTTP_STATUS = { unauthenticated: 401, permission_denied: 403, unavailable: 503 } as const;

/** A Connect unary error, before Connect reads the body; the connection closes rather than read a body nobody wants. */
function refuse(res: ServerResponse, code: keyof typeof HTTP_STATUS, message: string): void {
  if (res.headersSent) return;
  res.writeHead(HTTP_STATUS[code], { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ code, message }));
}
