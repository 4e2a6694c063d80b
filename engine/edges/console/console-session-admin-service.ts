// ConsoleSessionAdminService: the console's sessions for admins — the list
// (person, how they signed in, roles, when it began, ends and was last
// confirmed; never the cookie nor its hash) and ending one person's sessions
// or all of them. Served on the engine's port (admin scope, like every service
// the gate's scope table does not name) and on the console's listener (the
// admin role in every company: console-rpc-policy.ts); ending is audited
// (engine/domain/audit/audited-methods.ts). An ended session's next call is refused,
// on every engine: the row is gone.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import {
  ConsoleSessionInfoSchema,
  SignInMethod,
  type ConsoleSessionAdminService,
} from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { CONSOLE_CALL } from './console-gate.ts';
import { personOf } from './console-service.ts';
import { endSessions, listSessions } from './console-sessions.ts';

export interface ConsoleSessionAdminDeps {
  orm: MikroORM;
  logger: Logger;
}

export function createConsoleSessionAdminService(
  deps: ConsoleSessionAdminDeps,
): ServiceImpl<typeof ConsoleSessionAdminService> {
  return {
    async listConsoleSessions(_request, context) {
      const own = context.values.get(CONSOLE_CALL).session?.key;
      const sessions = await listSessions(deps.orm);
      return {
        sessions: sessions.map((session) => {
          const { roles } = personOf(session);
          const rechecks = session.identity.via === 'oidc' && session.rechecks;
          return create(ConsoleSessionInfoSchema, {
            person: session.identity.person,
            via: session.identity.via === 'oidc' ? SignInMethod.OIDC : SignInMethod.ADMIN_TOKEN,
            roles,
            createdAt: timestampFromDate(session.createdAt),
            expiresAt: timestampFromDate(session.expiresAt),
            checkedAt: rechecks ? timestampFromDate(session.checkedAt) : undefined,
            providerRechecks: rechecks,
            current: session.key === own,
          });
        }),
      };
    },
    async endConsoleSessions(request) {
      const person = request.person.trim();
      if ((person === '') === !request.all)
        throw new InvalidArgumentError('name one person (person) or every session (all), not both and not neither');
      const ended = await endSessions(deps.orm, request.all ? 'all' : { person });
      if (ended === 0 && !request.all)
        throw new NotFoundError(`no console session of "${person}" (names as the session list shows them)`);
      deps.logger.info(
        { person: request.all ? undefined : person, all: request.all, ended },
        'console sessions ended by an admin',
      );
      return { ended };
    },
  };
}
