// ConsoleService: signing in and out of the console, and telling the page who
// is signed in. The session lives in the cookie this sets (HttpOnly,
// SameSite=Strict, Secure over TLS, `__Host-` prefixed when it can be); the
// admin token is checked once, here, and kept by nobody.
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
} from '../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import type { ServiceAccountDirectory } from '../rpc/service-account-directory.ts';
import { adminCredentialOf } from '../security/admin-credentials.ts';
import { CONSOLE_CALL } from './console-gate.ts';
import { csrfTokenOf } from './console-csrf.ts';
import { EVERY_COMPANY, type ConsoleRoleName } from './console-roles.ts';
import type { ConsoleSessions, FoundSession } from './console-sessions.ts';
import type { SessionCookie } from './session-cookie.ts';

export interface ConsoleServiceDeps {
  sessions: ConsoleSessions;
  accounts: ServiceAccountDirectory;
  csrfKey: Buffer;
  cookie: SessionCookie;
  logger: Logger;
  /** Set when people sign in with OpenID Connect too. */
  oidc?: { issuer: string; startPath: string };
}

const ROLE: Record<ConsoleRoleName, ConsoleRole> = { viewer: ConsoleRole.VIEWER, editor: ConsoleRole.EDITOR, admin: ConsoleRole.ADMIN };

export function createConsoleService(deps: ConsoleServiceDeps): ServiceImpl<typeof ConsoleService> {
  const signInOptions = create(SignInOptionsSchema, { oidcPath: deps.oidc?.startPath ?? '', oidcIssuer: deps.oidc?.issuer ?? '' });
  return {
    async getSession(_request, context) {
      const call = context.values.get(CONSOLE_CALL);
      if (call.staleCookie) context.responseHeader.append('set-cookie', deps.cookie.clear());
      if (!call.session) return { signIn: signInOptions };
      return { person: personOf(call.session), csrfToken: csrfTokenOf(deps.csrfKey, call.session.key), signIn: signInOptions };
    },
    async signIn(request, context) {
      const admin = await adminCredentialOf(request.adminToken.trim(), deps.accounts);
      if (!admin) {
        deps.logger.warn('console: sign-in refused');
        throw new ConnectError('Not signed in: that is not an enabled admin-scope service account token or FLOWHOOK_ADMIN_TOKEN.', Code.Unauthenticated);
      }
      // A sign-in always starts a new session (never adopts one the browser brought along).
      await endCurrent(context, deps);
      const { cookieValue, session } = await deps.sessions.open({
        person: admin.account,
        via: 'admin-token',
        account: admin.account,
        tokenHash: admin.tokenHash,
        roles: { [EVERY_COMPANY]: 'admin' },
      });
      context.responseHeader.append('set-cookie', deps.cookie.set(cookieValue, deps.sessions.ttlMs));
      deps.logger.info({ person: admin.account, via: 'admin-token', ttlSeconds: deps.sessions.ttlMs / 1000 }, 'console: signed in');
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
    roles: Object.entries(identity.roles).map(([company, role]) => create(CompanyRoleSchema, { company, role: ROLE[role] })),
    expiresAt: timestampFromDate(session.expiresAt),
  });
}
