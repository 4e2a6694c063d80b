// `flowhook user …`: the service users of the Basic path (legacy: a named user and a long-lived key),
// each command one call to FlowAdminService.CreateUser or UserAdminService.
// No command ever shows a key except the one create and rotate-key print
// once. `delete` cannot be undone, so it needs --yes (there is no prompt:
// a script and a person get the same answer).
import { toJson } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
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
import { isoTimestamp } from './access-commands.ts';
import { adminAction, CliError, type AdminRuntime } from './admin-action.ts';
import { card, printJson, printLines, shellArg, shownOnce, table } from './output.ts';

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;
const DEFAULT_PERMISSION_SET = 'FLOW ALL';
const SET_HELP = 'FLOW ALL (what a service user needs) or SUPER; FLOW INTEGR. is for applications and is refused';

export function registerUserCommands(program: Command, runtime: AdminRuntime): void {
  const user = program.command('user').description('service users that call the webhook endpoint with Basic authentication (legacy)');
  user
    .command('create')
    .description('create a service user with a web service access key (Basic authentication)')
    .argument('<name>')
    .addOption(new Option('--company <name>', 'the company its permission set holds in (this or --all-companies is required)').conflicts('allCompanies'))
    .option('--all-companies', 'its permission set holds in every company, also ones created later (never the default)')
    .option('--permission-set <set>', `${SET_HELP} (default: ${DEFAULT_PERMISSION_SET})`)
    .option('--expires-at <iso>', 'expiry of the access key, an ISO 8601 timestamp', isoTimestamp)
    .option('--json', 'print the response as JSON (it holds the access key)')
    .action(
      adminAction(runtime, async (context, name: string) => {
        const options = context.options as { company?: string; allCompanies?: boolean; permissionSet?: string; expiresAt?: Date };
        // The engine refuses a user with neither --company nor --all-companies, naming both.
        const response = await context.client().createUser({
          name,
          company: options.company ?? '',
          allCompanies: options.allCompanies ?? false,
          permissionSet: options.permissionSet ?? '',
          accessKeyExpiresAt: options.expiresAt ? timestampFromDate(options.expiresAt) : undefined,
        });
        if (context.json) return printJson(context.io, toJson(CreateUserResponseSchema, response, JSON_OPTIONS));
        const scope = options.company ? `company ${options.company}` : 'all companies';
        const expiry = options.expiresAt ? `, key expires ${options.expiresAt.toISOString()}` : '';
        printLines(context.io, [
          `Created service user "${response.name}" (${options.permissionSet ?? DEFAULT_PERMISSION_SET}, ${scope}${expiry}).`,
          ...shownOnce('web service access key', response.accessKey),
          `  Callers send it with Basic authentication, e.g. curl -u '${response.name}:<access key>' …`,
        ]);
      }),
    );
  user
    .command('list')
    .description('list service users with their state, key expiry and permission sets (never a key)')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context) => {
        const response = await context.client().listUsers({});
        if (context.json) return printJson(context.io, toJson(ListUsersResponseSchema, response, JSON_OPTIONS));
        if (response.users.length === 0) return printLines(context.io, ['No service users yet. Create one with: flowhook user create <name> --company <company>']);
        const rows = response.users.map((u) => [u.name, stateOf(u), keyExpiry(u), permissionSets(u.permissionSets) || 'none', time(u.createdAt)]);
        printLines(context.io, table(['NAME', 'STATE', 'KEY EXPIRES', 'PERMISSION SETS', 'CREATED'], rows));
      }),
    );
  user
    .command('show')
    .description('one service user: state, key expiry, permission sets, and what to do when it cannot call')
    .argument('<name>')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, name: string) => {
        const response = await context.client().getUser({ name });
        if (context.json) return printJson(context.io, toJson(GetUserResponseSchema, response, JSON_OPTIONS));
        printLines(context.io, userCard(response.user!));
      }),
    );
  registerGrantCommands(user, runtime);
  user
    .command('delete')
    .description('delete a service user and its permission sets: its calls get 401 at once and the name is free again (needs --yes)')
    .argument('<name>')
    .option('--yes', 'confirm: the user and its key cannot be restored')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, name: string) => {
        if (context.options.yes !== true) {
          // Look it up first, so an unknown name is not_found and the refusal says what would go.
          const { user: existing } = await context.client().getUser({ name });
          const sets = permissionSets(existing!.permissionSets);
          throw new CliError(
            `not deleted: deleting "${existing!.name}" removes it${sets ? ` and its grants (${sets})` : ''}; its calls get 401 at once and its key cannot be restored. ` +
              `Confirm with: flowhook user delete ${shellArg(existing!.name)} --yes (or pause it instead: flowhook user disable ${shellArg(existing!.name)})`,
            Code.FailedPrecondition,
          );
        }
        const response = await context.client().deleteUser({ name });
        if (context.json) return printJson(context.io, toJson(DeleteUserResponseSchema, response, JSON_OPTIONS));
        const sets = permissionSets(response.user!.permissionSets);
        printLines(context.io, [`Deleted service user "${response.user!.name}"${sets ? ` and its grants (${sets})` : ''}; its calls now get 401 and the name can be used again.`]);
      }),
    );
  user
    .command('rotate-key')
    .description('replace the web service access key; the old key stops working at once, the expiry is kept unless changed')
    .argument('<name>')
    .addOption(new Option('--expires-at <iso>', 'new expiry of the key, an ISO 8601 timestamp').argParser(isoTimestamp).conflicts('expiry'))
    .addOption(new Option('--no-expiry', 'the new key does not expire'))
    .option('--json', 'print the response as JSON (it holds the access key)')
    .action(
      adminAction(runtime, async (context, name: string) => {
        // commander's --no-expiry sets `expiry` to false; it is true when not given.
        const options = context.options as { expiresAt?: Date; expiry: boolean };
        const response = await context.client().regenerateUserKey({
          name,
          accessKeyExpiresAt: options.expiresAt ? timestampFromDate(options.expiresAt) : undefined,
          clearExpiry: !options.expiry,
        });
        if (context.json) return printJson(context.io, toJson(RegenerateUserKeyResponseSchema, response, JSON_OPTIONS));
        const kept = !options.expiresAt && options.expiry ? ', as before' : '';
        const expiry = response.accessKeyExpiresAt ? `expires ${time(response.accessKeyExpiresAt)}` : 'does not expire';
        printLines(context.io, [
          `New access key for "${response.name}" (${expiry}${kept}); the previous key no longer works.`,
          ...shownOnce('web service access key', response.accessKey),
        ]);
      }),
    );
  for (const [command, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    user
      .command(command)
      .description(enabled ? 'allow the user to call again' : "refuse the user's calls (401) whatever key it sends")
      .argument('<name>')
      .option('--json', 'print the response as JSON')
      .action(
        adminAction(runtime, async (context, userName: string) => {
          const response = await context.client().setUserState({ name: userName, enabled });
          if (context.json) return printJson(context.io, toJson(SetUserStateResponseSchema, response, JSON_OPTIONS));
          printLines(context.io, [`Service user "${response.name}" is ${response.enabled ? 'enabled' : 'disabled'}.`]);
        }),
      );
  }
}

function registerGrantCommands(user: Command, runtime: AdminRuntime): void {
  user
    .command('grant')
    .description('grant a permission set for a company (or, with --all-companies, all); granting one the user has changes nothing')
    .argument('<name>')
    .addOption(new Option('--company <name>', 'the company the permission set holds in (this or --all-companies is required)').conflicts('allCompanies'))
    .option('--all-companies', 'the permission set holds in every company, also ones created later (never the default)')
    .requiredOption('--permission-set <set>', SET_HELP)
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, name: string) => {
        const options = context.options as { company?: string; allCompanies?: boolean; permissionSet: string };
        // The engine refuses a grant with neither --company nor --all-companies, naming both.
        const response = await context
          .client()
          .grantUserPermission({ name, company: options.company ?? '', allCompanies: options.allCompanies ?? false, permissionSet: options.permissionSet });
        if (context.json) return printJson(context.io, toJson(GrantUserPermissionResponseSchema, response, JSON_OPTIONS));
        const granted = scoped(response.granted!.permissionSet, response.granted!.company);
        const head = response.alreadyGranted ? `"${response.user!.name}" already has ${granted}; nothing changed.` : `Granted ${granted} to "${response.user!.name}".`;
        printLines(context.io, [head, `  permission sets: ${permissionSets(response.user!.permissionSets)}`]);
      }),
    );
  user
    .command('revoke')
    .description('revoke a permission set for exactly the company it was granted for (none: the all-companies grant)')
    .argument('<name>')
    .option('--company <name>', 'the company of the grant (default: the all-companies grant)')
    .requiredOption('--permission-set <set>', 'the permission set to revoke')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, name: string) => {
        const options = context.options as { company?: string; permissionSet: string };
        const response = await context.client().revokeUserPermission({ name, company: options.company ?? '', permissionSet: options.permissionSet });
        if (context.json) return printJson(context.io, toJson(RevokeUserPermissionResponseSchema, response, JSON_OPTIONS));
        printLines(context.io, [
          `Revoked ${scoped(response.revoked!.permissionSet, response.revoked!.company)} from "${response.user!.name}"; it takes effect with the next call.`,
          `  permission sets: ${permissionSets(response.user!.permissionSets) || 'none'}`,
          ...response.warnings.map((warning) => `  warning: ${warning}`),
        ]);
      }),
    );
}

function userCard(user: User): string[] {
  const sets = user.permissionSets.map((held) => `${scoped(held.permissionSet, held.company)}${held.usable ? '' : ' — never lets a service user call; revoke it'}`);
  const name = shellArg(user.name);
  const next: string[] = [];
  if (!user.enabled) next.push(`Its calls get 401 while it is disabled: flowhook user enable ${name}`);
  if (user.accessKeyExpired) next.push(`Its key has expired (calls get 401): flowhook user rotate-key ${name} --expires-at <ISO 8601> (or --no-expiry)`);
  if (!user.permissionSets.some((held) => held.usable))
    next.push(
      `No permission set lets it call (calls get ${user.permissionSets.length === 0 ? '401' : '403 where it holds a set, 401 elsewhere'}): flowhook user grant ${name} --company <company> --permission-set "${DEFAULT_PERMISSION_SET}"`,
    );
  return [
    `Service user "${user.name}"`,
    ...card([
      ['State', stateOf(user)],
      ['Key expires', keyExpiry(user)],
      ['Created', time(user.createdAt)],
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
  return `${user.accessKeyExpired ? 'expired ' : ''}${time(user.accessKeyExpiresAt)}`;
}

function permissionSets(sets: UserPermissionSet[]): string {
  return sets.map((held) => scoped(held.permissionSet, held.company)).join(', ');
}

function scoped(permissionSet: string, company: string | undefined): string {
  return `${permissionSet} (${company || 'all companies'})`;
}

function time(timestamp: Timestamp | undefined): string {
  return timestamp ? timestampDate(timestamp).toISOString() : '';
}
