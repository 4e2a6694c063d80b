// ConsoleService: signing in and out of the console, and telling the page who
// is signed in. The session lives in the cookie this sets (HttpOnly,
// SameSite=Strict, Secure and `__Host-` prefixed wherever browsers use https);
// the admin token is checked once, here, and kept by nobody — the session row
// keeps a keyed hash of it. Failed sign-ins are limited per sender and per
// deployment (sign-in-limiter.ts): a held-back attempt is answered
// RESOURCE_EXHAUSTED (429) with Retry-After, its token unchecked.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import type { Logger } from 'pino';
import {
  CompanyRoleSchema,
  ConsolePersonSchema,
  ConsoleRole,
  SignInMethod,
  SignInOptionsSchema,
  type ConsolePerson,
  type ConsoleService,
} from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { RateLimitedError } from '../../errors.ts';
import type { SignInRefusal } from '../../domain/metrics/engine-metrics.ts';
import type { ServiceAccountDirectory } from '../../domain/callers/service-account-directory.ts';
import { adminCredentialOf, credentialMac } from '../../domain/callers/admin-credentials.ts';
import { CONSOLE_CALL } from './console-gate.ts';
import { csrfTokenOf } from './console-csrf.ts';
import { EVERY_COMPANY, type ConsoleRoleName } from '../../domain/callers/console-roles.ts';
import type { ConsoleSessions, FoundSession } from './console-sessions.ts';
import type { BrowserCookie } from '../http/browser-sessions.ts';
import type { SignInLimiter } from './sign-in-limiter.ts';

export interface ConsoleServiceDeps {
  sessions: ConsoleSessions;
  accounts: ServiceAccountDirectory;
  csrfKey: Buffer;
  /** The `console-session` deployment key (security/admin-credentials.ts credentialMac). */
  credentialKey: Buffer;
  cookie: BrowserCookie;
  limiter: SignInLimiter;
  /** Counts a refused sign-in (flowhook_engine_console_sign_ins_refused_total). */
  signInRefused: (reason: SignInRefusal) => void;
  logger: Logger;
  /** Set when people sign in with OpenID Connect too. */
  oidc?: { issuer: string; startPath: string };
}

const ROLE: Record<ConsoleRoleName, ConsoleRole> = {
  viewer: ConsoleRole.VIEWER,
  editor: ConsoleRole.EDITOR,
  admin: ConsoleRole.ADMIN,
};

export function createConsoleService(deps: ConsoleServiceDeps): ServiceImpl<typeof ConsoleService> {
  const signInOptions = create(SignInOptionsSchema, {
    oidcPath: deps.oidc?.startPath ?? '',
    oidcIssuer: deps.oidc?.issuer ?? '',
  });
  return {
    async getSession(_request, context) {
      const call = context.values.get(CONSOLE_CALL);
      if (call.staleCookie) context.responseHeader.append('set-cookie', deps.cookie.clear());
      if (!call.session) return { signIn: signInOptions };
      return {
        person: personOf(call.session),
        csrfToken: csrfTokenOf(deps.csrfKey, call.session.key),
        signIn: signInOptions,
      };
    },
    async signIn(request, context) {
      const { sender } = context.values.get(CONSOLE_CALL);
      const verdict = deps.limiter.admit(sender, Date.now());
      if (!verdict.allowed) {
        const refusal = verdict.reason === 'sender' ? 'sender_backoff' : 'deployment_budget';
        deps.signInRefused(refusal);
        deps.logger.warn(
          { sender, reason: refusal, retryAfterSeconds: verdict.retryAfterSeconds },
          'console: sign-in refused unchecked: too many failed sign-ins',
        );
        const from = verdict.reason === 'sender' ? 'from your address' : 'at this console';
        throw new RateLimitedError(
          `Too many failed sign-ins ${from}: try again in ${verdict.retryAfterSeconds} s.`,
          verdict.retryAfterSeconds,
        );
      }
      let admin;
      try {
        admin = await adminCredentialOf(request.adminToken.trim(), deps.accounts);
      } catch (error) {
        // Not the token's fault (the directory could not be read): no failure counted.
        verdict.attempt.succeeded();
        throw error;
      }
      if (!admin) {
        deps.signInRefused('wrong_token');
        deps.logger.warn({ sender, reason: 'wrong_token' }, 'console: sign-in refused');
        throw new ConnectError(
          'Not signed in: that is not an enabled admin-scope service account token or FLOWHOOK_ADMIN_TOKEN.',
          Code.Unauthenticated,
        );
      }
      verdict.attempt.succeeded();
      // A sign-in always starts a new session (never adopts one the browser brought along).
      await endCurrent(context, deps);
      const { cookieValue, session } = await deps.sessions.open({
        person: admin.account,
        via: 'admin-token',
        account: admin.account,
        tokenMac: credentialMac(deps.credentialKey, admin),
        roles: { [EVERY_COMPANY]: 'admin' },
      });
      context.responseHeader.append('set-cookie', deps.cookie.set(cookieValue, deps.sessions.ttlMs));
      deps.logger.info(
        { person: admin.account, via: 'admin-token', ttlSeconds: deps.sessions.ttlMs / 1000 },
        'console: signed in',
      );
      return { person: personOf(session), csrfToken: csrfTokenOf(deps.csrfKey, session.key) };
    },
    async signOut(_request, context) {
      await endCurrent(context, deps);
      context.responseHeader.append('set-cookie', deps.cookie.clear());
      return {};
    },
  };
}

async function endCurrent(context: HandlerContext, deps: ConsoleServiceDeps): Promise<void> {
  const session = context.values.get(CONSOLE_CALL).session;
  if (!session) return;
  await deps.sessions.close(session.key);
  deps.logger.info({ person: session.identity.person }, 'console: signed out');
}

export function personOf(session: FoundSession): ConsolePerson {
  const { identity } = session;
  return create(ConsolePersonSchema, {
    name: identity.person,
    via: identity.via === 'oidc' ? SignInMethod.OIDC : SignInMethod.ADMIN_TOKEN,
    roles: Object.entries(identity.roles).map(([company, role]) =>
      create(CompanyRoleSchema, { company, role: ROLE[role] }),
    ),
    expiresAt: timestampFromDate(session.expiresAt),
  });
}
