// `flowhook console sessions list|end`: who is signed in to the web console,
// and ending sessions — one person's (`--person`) or every one (`--all`) —
// through the engine's ConsoleSessionAdminService with the admin token. The
// end is in the audit log; nothing printed names a cookie.
import { createClient, type Client } from '@connectrpc/connect';
import type { Command } from 'commander';
import {
  ConsoleRole,
  ConsoleSessionAdminService,
  EndConsoleSessionsResponseSchema,
  ListConsoleSessionsResponseSchema,
  SignInMethod,
  type ConsoleSessionInfo,
} from '../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { commandRuntime, UsageError, type CommandWiring } from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';
import { adminOptionsFromEnvironment, createAdminTransport } from './admin-client.ts';
import { tableOr, timeText } from './output.ts';

export type ConsoleSessionClient = Client<typeof ConsoleSessionAdminService>;

export type ConsoleSessionCommandDeps = CommandWiring<ConsoleSessionClient>;

const ROLE_NAMES: Partial<Record<ConsoleRole, string>> = {
  [ConsoleRole.VIEWER]: 'viewer',
  [ConsoleRole.EDITOR]: 'editor',
  [ConsoleRole.ADMIN]: 'admin',
};

export function registerConsoleSessionCommands(program: Command, deps: ConsoleSessionCommandDeps = {}): void {
  // Connects on first use, so `--help` and usage errors need no engine and no token.
  const runtime = commandRuntime(deps, () =>
    createClient(ConsoleSessionAdminService, createAdminTransport(adminOptionsFromEnvironment())),
  );
  const sessions = program
    .command('console')
    .description('the web console: its sessions (who is signed in), for admins')
    .command('sessions')
    .description("the console's sessions: who is signed in, with which roles, until when — never a cookie");
  rpcCommand(runtime, sessions.command('list'), {
    description: 'every live console session, newest first',
    response: ListConsoleSessionsResponseSchema,
    call: (context) => context.client().listConsoleSessions({}),
    lines: ({ sessions: live }) =>
      tableOr(
        'Nobody is signed in to the console.',
        ['PERSON', 'VIA', 'ROLES', 'CREATED', 'EXPIRES', 'LAST CHECK'],
        live.map(row),
      ),
  });
  rpcCommand(runtime, sessions.command('end'), {
    description: "end one person's console sessions (--person) or every session (--all): their next call is refused",
    options: (command) =>
      command
        .option('--person <name>', 'the person, exactly as `console sessions list` names them')
        .option('--all', 'every session of everyone'),
    response: EndConsoleSessionsResponseSchema,
    call: (context) => {
      const options = context.options as { person?: string; all?: boolean };
      if ((options.person === undefined) === (options.all !== true))
        throw new UsageError('name one person with --person <name>, or end every session with --all');
      return context.client().endConsoleSessions({ person: options.person ?? '', all: options.all === true });
    },
    lines: (response, context) => {
      const whose = context.options.all
        ? 'every console session'
        : `the console sessions of ${context.options.person as string}`;
      return [`Ended ${whose}: ${response.ended} session(s). Their next call is refused; the person signs in again.`];
    },
  });
}

function row(session: ConsoleSessionInfo): string[] {
  const roles = session.roles
    .map((grant) => `${ROLE_NAMES[grant.role] ?? '?'}${grant.company === '' ? '' : `:${grant.company}`}`)
    .join(' ');
  const check =
    session.via === SignInMethod.ADMIN_TOKEN
      ? 'every call'
      : session.checkedAt
        ? timeText(session.checkedAt)
        : 'at sign-in only';
  return [
    `${session.person}${session.current ? ' (you)' : ''}`,
    session.via === SignInMethod.OIDC ? 'oidc' : 'admin-token',
    roles,
    timeText(session.createdAt),
    timeText(session.expiresAt),
    check,
  ];
}
