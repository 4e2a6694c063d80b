// `flowhook console sessions list|end`: who is signed in to the web console,
// and ending sessions — one person's (`--person`) or every one (`--all`) —
// through the engine's ConsoleSessionAdminService with the admin token. The
// end is in the audit log; nothing printed names a cookie.
import { toJson } from '@bufbuild/protobuf';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
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
import { exitCodeFor, reportError, UsageError } from './admin-action.ts';
import { adminOptionsFromEnvironment, createAdminTransport } from './admin-client.ts';
import { printJson, printLines, processIo, table, type CliIo } from './output.ts';

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

export type ConsoleSessionClient = Client<typeof ConsoleSessionAdminService>;

export interface ConsoleSessionCommandDeps {
  /** Default: built from the environment on the first call. */
  client?: () => ConsoleSessionClient;
  io?: CliIo;
  setExitCode?: (code: number) => void;
}

const ROLE_NAMES: Partial<Record<ConsoleRole, string>> = { [ConsoleRole.VIEWER]: 'viewer', [ConsoleRole.EDITOR]: 'editor', [ConsoleRole.ADMIN]: 'admin' };

export function registerConsoleSessionCommands(program: Command, deps: ConsoleSessionCommandDeps = {}): void {
  const io = deps.io ?? processIo;
  const setExitCode = deps.setExitCode ?? ((code: number) => void (process.exitCode = code));
  // Connects on first use, so `--help` and usage errors need no engine and no token.
  const client = deps.client ?? (() => createClient(ConsoleSessionAdminService, createAdminTransport(adminOptionsFromEnvironment())));
  const run = (json: boolean, action: () => Promise<void>) =>
    action().catch((error: unknown) => {
      reportError(io, json, error);
      setExitCode(exitCodeFor(error));
    });
  const sessions = program
    .command('console')
    .description('the web console: its sessions (who is signed in), for admins')
    .command('sessions')
    .description("the console's sessions: who is signed in, with which roles, until when — never a cookie");
  sessions
    .command('list')
    .description('every live console session, newest first')
    .option('--json', 'print the response as JSON')
    .action(async (options: { json?: boolean }) =>
      run(options.json === true, async () => {
        const response = await client().listConsoleSessions({});
        if (options.json) return printJson(io, toJson(ListConsoleSessionsResponseSchema, response, JSON_OPTIONS));
        if (response.sessions.length === 0) return printLines(io, ['Nobody is signed in to the console.']);
        printLines(io, table(['PERSON', 'VIA', 'ROLES', 'CREATED', 'EXPIRES', 'LAST CHECK'], response.sessions.map(row)));
      }),
    );
  sessions
    .command('end')
    .description("end one person's console sessions (--person) or every session (--all): their next call is refused")
    .option('--person <name>', 'the person, exactly as `console sessions list` names them')
    .option('--all', 'every session of everyone')
    .option('--json', 'print the response as JSON')
    .action(async (options: { person?: string; all?: boolean; json?: boolean }) =>
      run(options.json === true, async () => {
        if ((options.person === undefined) === (options.all !== true)) throw new UsageError('name one person with --person <name>, or end every session with --all');
        const response = await client().endConsoleSessions({ person: options.person ?? '', all: options.all === true });
        if (options.json) return printJson(io, toJson(EndConsoleSessionsResponseSchema, response, JSON_OPTIONS));
        const whose = options.all ? 'every console session' : `the console sessions of ${options.person}`;
        printLines(io, [`Ended ${whose}: ${response.ended} session(s). Their next call is refused; the person signs in again.`]);
      }),
    );
}

function row(session: ConsoleSessionInfo): string[] {
  const roles = session.roles.map((grant) => `${ROLE_NAMES[grant.role] ?? '?'}${grant.company === '' ? '' : `:${grant.company}`}`).join(' ');
  const check = session.via === SignInMethod.ADMIN_TOKEN ? 'every call' : session.checkedAt ? time(session.checkedAt) : 'at sign-in only';
  return [
    `${session.person}${session.current ? ' (you)' : ''}`,
    session.via === SignInMethod.OIDC ? 'oidc' : 'admin-token',
    roles,
    time(session.createdAt),
    time(session.expiresAt),
    check,
  ];
}

function time(at: Timestamp | undefined): string {
  return at ? timestampDate(at).toISOString() : '';
}
