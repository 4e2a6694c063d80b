// `flowhook user …`: the service users of the Basic path (legacy: a named user and a long-lived key),
// each command one call to FlowAdminService.CreateUser or UserAdminService.
// No command ever shows a key except the one create and rotate-key print
// once. `delete` cannot be undone, so it needs --yes (there is no prompt:
// a script and a person get the same answer).
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Option, type Command } from 'commander';
import { CreateUserResponseSchema } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import {
  DeleteUserResponseSchema,
  GetUserResponseSchema,
  GrantUserPermissionResponseSchema,
  ListUsersResponseSchema,
  RegenerateUserKeyResponseSchema,
  RevokeUserPermissionResponseSchema,
  SetUserStateResponseSchema,
  type User,
  type UserPermissionSet,
} from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import type { AdminRuntime } from './admin-action.ts';
import { requireYes, rpcCommand } from './admin-command.ts';
import { isoTimestamp } from './option-values.ts';
import { card, shellArg, shownOnce, tableOr, timeText } from './output.ts';

const DEFAULT_PERMISSION_SET = 'FLOW ALL';
const SET_HELP = 'FLOW ALL (what a service user needs) or SUPER; FLOW INTEGR. is for applications and is refused';

export function registerUserCommands(program: Command, runtime: AdminRuntime): void {
  const user = program
    .command('user')
    .description('service users that call the webhook endpoint with Basic authentication (legacy)');
  rpcCommand(runtime, user.command('create <name>'), {
    description: 'create a service user with a web service access key (Basic authentication)',
    options: (command) =>
      command
        .addOption(
          new Option(
            '--company <name>',
            'the company its permission set holds in (this or --all-companies is required)',
          ).conflicts('allCompanies'),
        )
        .option(
          '--all-companies',
          'its permission set holds in every company, also ones created later (never the default)',
        )
        .option('--permission-set <set>', `${SET_HELP} (default: ${DEFAULT_PERMISSION_SET})`)
        .option('--expires-at <iso>', 'expiry of the access key, an ISO 8601 timestamp', isoTimestamp),
    jsonHolds: 'the access key',
    response: CreateUserResponseSchema,
    call: (context, name: string) => {
      const { company, allCompanies, permissionSet, expiresAt } = context.options as CreateOptions;
      // The engine refuses a user with neither --company nor --all-companies, naming both.
      return context.client().createUser({
        name,
        company: company ?? '',
        allCompanies: allCompanies ?? false,
        permissionSet: permissionSet ?? '',
        accessKeyExpiresAt: expiresAt && timestampFromDate(expiresAt),
      });
    },
    lines: (response, context) => {
      const { company, permissionSet, expiresAt } = context.options as CreateOptions;
      const expiry = expiresAt ? `, key expires ${expiresAt.toISOString()}` : '';
      return [
        `Created service user "${response.name}" (${permissionSet ?? DEFAULT_PERMISSION_SET}, ${company ? `company ${company}` : 'all companies'}${expiry}).`,
        ...shownOnce('web service access key', response.accessKey),
        `  Callers send it with Basic authentication, e.g. curl -u '${response.name}:<access key>' …`,
      ];
    },
  });
  rpcCommand(runtime, user.command('list'), {
    description: 'list service users with their state, key expiry and permission sets (never a key)',
    response: ListUsersResponseSchema,
    call: (context) => context.client().listUsers({}),
    lines: ({ users }) =>
      tableOr(
        'No service users yet. Create one with: flowhook user create <name> --company <company>',
        ['NAME', 'STATE', 'KEY EXPIRES', 'PERMISSION SETS', 'CREATED'],
        users.map((u) => [
          u.name,
          stateOf(u),
          keyExpiry(u),
          permissionSets(u.permissionSets) || 'none',
          timeText(u.createdAt),
        ]),
      ),
  });
  rpcCommand(runtime, user.command('show <name>'), {
    description: 'one service user: state, key expiry, permission sets, and what to do when it cannot call',
    response: GetUserResponseSchema,
    call: (context, name: string) => context.client().getUser({ name }),
    lines: (response) => userCard(response.user!),
  });
  registerGrantCommands(user, runtime);
  rpcCommand(runtime, user.command('delete <name>'), {
    description:
      'delete a service user and its permission sets: its calls get 401 at once and the name is free again (needs --yes)',
    options: (command) => command.option('--yes', 'confirm: the user and its key cannot be restored'),
    response: DeleteUserResponseSchema,
    call: async (context, name: string) => {
      await requireYes(context, async () => {
        // Looked up first, so an unknown name is not_found and the refusal says what would go.
        const { user: existing } = await context.client().getUser({ name });
        const sets = permissionSets(existing!.permissionSets);
        return (
          `not deleted: deleting "${existing!.name}" removes it${sets ? ` and its grants (${sets})` : ''}; its calls get 401 at once and its key cannot be restored. ` +
          `Confirm with: flowhook user delete ${shellArg(existing!.name)} --yes (or pause it instead: flowhook user disable ${shellArg(existing!.name)})`
        );
      });
      return context.client().deleteUser({ name });
    },
    lines: ({ user: deleted }) => {
      const sets = permissionSets(deleted!.permissionSets);
      return [
        `Deleted service user "${deleted!.name}"${sets ? ` and its grants (${sets})` : ''}; its calls now get 401 and the name can be used again.`,
      ];
    },
  });
  rpcCommand(runtime, user.command('rotate-key <name>'), {
    description:
      'replace the web service access key; the old key stops working at once, the expiry is kept unless changed',
    options: (command) =>
      command
        .addOption(
          new Option('--expires-at <iso>', 'new expiry of the key, an ISO 8601 timestamp')
            .argParser(isoTimestamp)
            .conflicts('expiry'),
        )
        .addOption(new Option('--no-expiry', 'the new key does not expire')),
    jsonHolds: 'the access key',
    response: RegenerateUserKeyResponseSchema,
    call: (context, name: string) => {
      const { expiresAt, expiry } = context.options as RotateKeyOptions;
      return context.client().regenerateUserKey({
        name,
        accessKeyExpiresAt: expiresAt && timestampFromDate(expiresAt),
        clearExpiry: !expiry,
      });
    },
    lines: (response, context) => {
      const { expiresAt, expiry } = context.options as RotateKeyOptions;
      const kept = !expiresAt && expiry ? ', as before' : '';
      const expires = response.accessKeyExpiresAt
        ? `expires ${timeText(response.accessKeyExpiresAt)}`
        : 'does not expire';
      return [
        `New access key for "${response.name}" (${expires}${kept}); the previous key no longer works.`,
        ...shownOnce('web service access key', response.accessKey),
      ];
    },
  });
  for (const [command, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    rpcCommand(runtime, user.command(`${command} <name>`), {
      description: enabled ? 'allow the user to call again' : "refuse the user's calls (401) whatever key it sends",
      response: SetUserStateResponseSchema,
      call: (context, name: string) => context.client().setUserState({ name, enabled }),
      lines: (response) => [`Service user "${response.name}" is ${response.enabled ? 'enabled' : 'disabled'}.`],
    });
  }
}

interface CreateOptions {
  company?: string;
  allCompanies?: boolean;
  permissionSet?: string;
  expiresAt?: Date;
}

type RotateKeyOptions = {
  expiresAt?: Date;
  /** commander's --no-expiry sets it to false; it is true when not given. */
  expiry: boolean;
};

function registerGrantCommands(user: Command, runtime: AdminRuntime): void {
  rpcCommand(runtime, user.command('grant <name>'), {
    description:
      'grant a permission set for a company (or, with --all-companies, all); granting one the user has changes nothing',
    options: (command) =>
      command
        .addOption(
          new Option(
            '--company <name>',
            'the company the permission set holds in (this or --all-companies is required)',
          ).conflicts('allCompanies'),
        )
        .option(
          '--all-companies',
          'the permission set holds in every company, also ones created later (never the default)',
        )
        .requiredOption('--permission-set <set>', SET_HELP),
    response: GrantUserPermissionResponseSchema,
    call: (context, name: string) => {
      const options = context.options as { company?: string; allCompanies?: boolean; permissionSet: string };
      // The engine refuses a grant with neither --company nor --all-companies, naming both.
      return context.client().grantUserPermission({
        name,
        company: options.company ?? '',
        allCompanies: options.allCompanies ?? false,
        permissionSet: options.permissionSet,
      });
    },
    lines: (response) => {
      const granted = scoped(response.granted!.permissionSet, response.granted!.company);
      const head = response.alreadyGranted
        ? `"${response.user!.name}" already has ${granted}; nothing changed.`
        : `Granted ${granted} to "${response.user!.name}".`;
      return [head, `  permission sets: ${permissionSets(response.user!.permissionSets)}`];
    },
  });
  rpcCommand(runtime, user.command('revoke <name>'), {
    description: 'revoke a permission set for exactly the company it was granted for (none: the all-companies grant)',
    options: (command) =>
      command
        .option('--company <name>', 'the company of the grant (default: the all-companies grant)')
        .requiredOption('--permission-set <set>', 'the permission set to revoke'),
    response: RevokeUserPermissionResponseSchema,
    call: (context, name: string) => {
      const options = context.options as { company?: string; permissionSet: string };
      return context
        .client()
        .revokeUserPermission({ name, company: options.company ?? '', permissionSet: options.permissionSet });
    },
    lines: (response) => [
      `Revoked ${scoped(response.revoked!.permissionSet, response.revoked!.company)} from "${response.user!.name}"; it takes effect with the next call.`,
      `  permission sets: ${permissionSets(response.user!.permissionSets) || 'none'}`,
      ...response.warnings.map((warning) => `  warning: ${warning}`),
    ],
  });
}

function userCard(user: User): string[] {
  const sets = user.permissionSets.map(
    (held) =>
      `${scoped(held.permissionSet, held.company)}${held.usable ? '' : ' — never lets a service user call; revoke it'}`,
  );
  const name = shellArg(user.name);
  const next: string[] = [];
  if (!user.enabled) next.push(`Its calls get 401 while it is disabled: flowhook user enable ${name}`);
  if (user.accessKeyExpired)
    next.push(
      `Its key has expired (calls get 401): flowhook user rotate-key ${name} --expires-at <ISO 8601> (or --no-expiry)`,
    );
  if (!user.permissionSets.some((held) => held.usable))
    next.push(
      `No permission set lets it call (calls get ${user.permissionSets.length === 0 ? '401' : '403 where it holds a set, 401 elsewhere'}): flowhook user grant ${name} --company <company> --permission-set "${DEFAULT_PERMISSION_SET}"`,
    );
  return [
    `Service user "${user.name}"`,
    ...card([
      ['State', stateOf(user)],
      ['Key expires', keyExpiry(user)],
      ['Created', timeText(user.createdAt)],
      ['Permission sets', sets[0] ?? 'none'],
      ...sets.slice(1).map((set): [string, string] => ['', set]),
    ]),
    ...next.map((line) => `  ${line}`),
  ];
}

function stateOf(user: User): string {
  return user.enabled ? 'Enabled' : 'Disabled';
}

function keyExpiry(user: User): string {
  if (!user.accessKeyExpiresAt) return 'never';
  return `${user.accessKeyExpired ? 'expired ' : ''}${timeText(user.accessKeyExpiresAt)}`;
}

function permissionSets(sets: UserPermissionSet[]): string {
  return sets.map((held) => scoped(held.permissionSet, held.company)).join(', ');
}

function scoped(permissionSet: string, company: string | undefined): string {
  return `${permissionSet} (${company || 'all companies'})`;
}
