// `flowhook service-account …`: the identities that call the engine's RPC
// port (facade, workers, CLI, your own services), each command one call to
// ServiceAccountAdminService. Only create and rotate print a token, once.
// `delete` cannot be undone, so it needs --yes.
import type { Command } from 'commander';
import {
  CreateServiceAccountResponseSchema,
  DeleteServiceAccountResponseSchema,
  ListServiceAccountsResponseSchema,
  RotateServiceAccountTokenResponseSchema,
  SetServiceAccountStateResponseSchema,
  type ServiceAccountInfo,
} from '../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import type { AdminRuntime } from './admin-action.ts';
import { requireYes, rpcCommand } from './admin-command.ts';
import { collect } from './option-values.ts';
import { shellArg, shownOnce, tableOr, timeText, yesNo } from './output.ts';

const SCOPE_HELP =
  'invoke (WebhookService), records (RecordService, OutboundService, CallbackService) or admin (the admin services)';

export function registerServiceAccountCommands(program: Command, runtime: AdminRuntime): void {
  const accounts = program
    .command('service-account')
    .description('identities that call the engine over gRPC/Connect: facade, workers, CLI and your own services');
  rpcCommand(runtime, accounts.command('create <name>'), {
    description: 'create a service account and print its token once',
    options: (command) =>
      command
        .requiredOption('--scope <scope>', SCOPE_HELP)
        .option(
          '--company <name>',
          'a company it acts for (repeatable); invoke accounts need one, or --all-companies',
          collect,
          [],
        )
        .option('--all-companies', 'act for every company, including ones created later')
        .option(
          '--forwards-callers',
          "the facade's account only: may pass on a Basic user or OAuth application it verified",
        ),
    jsonHolds: 'the token',
    response: CreateServiceAccountResponseSchema,
    call: (context, name: string) => {
      const options = context.options as {
        scope: string;
        company: string[];
        allCompanies?: boolean;
        forwardsCallers?: boolean;
      };
      return context.client().createServiceAccount({
        name,
        scope: options.scope,
        companies: options.company,
        allCompanies: options.allCompanies === true,
        forwardsCallers: options.forwardsCallers === true,
      });
    },
    lines: (response) => [
      `Created service account "${response.account!.name}" (${describe(response.account!)}).`,
      ...shownOnce('token', response.token),
      `  The service sends it as: authorization: Bearer <token>  (facade and workers read it from FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE)`,
    ],
  });
  rpcCommand(runtime, accounts.command('list'), {
    description: 'list service accounts with scope, companies and state (never a token)',
    response: ListServiceAccountsResponseSchema,
    call: (context) => context.client().listServiceAccounts({}),
    lines: ({ accounts: listed }) =>
      tableOr(
        'No service accounts yet. Create one with: flowhook service-account create <name> --scope invoke --company <company>',
        ['NAME', 'SCOPE', 'COMPANIES', 'FORWARDS CALLERS', 'STATE', 'TOKEN', 'TOKEN SINCE'],
        listed.map((a) => [
          a.name,
          a.scope,
          companiesOf(a),
          yesNo(a.forwardsCallers),
          a.enabled ? 'enabled' : 'disabled',
          a.tokenHint,
          timeText(a.rotatedAt ?? a.createdAt),
        ]),
      ),
  });
  for (const [command, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    rpcCommand(runtime, accounts.command(`${command} <name>`), {
      description: enabled
        ? 'enable a service account again (its current token works again)'
        : 'disable a service account: its calls get UNAUTHENTICATED at once, in every engine',
      response: SetServiceAccountStateResponseSchema,
      call: (context, name: string) => context.client().setServiceAccountState({ name, enabled }),
      lines: (response) => [`Service account "${response.account!.name}" is ${enabled ? 'enabled' : 'disabled'}.`],
    });
  }
  rpcCommand(runtime, accounts.command('rotate <name>'), {
    description: 'replace the token at once (the old one is refused from the next call) and print the new one once',
    jsonHolds: 'the token',
    response: RotateServiceAccountTokenResponseSchema,
    call: (context, name: string) => context.client().rotateServiceAccountToken({ name }),
    lines: (response) => [
      `New token for service account "${response.account!.name}"; the previous token no longer works.`,
      ...shownOnce('token', response.token),
    ],
  });
  rpcCommand(runtime, accounts.command('delete <name>'), {
    description: 'delete a service account: its token is refused at once (needs --yes)',
    options: (command) => command.option('--yes', 'confirm: the account cannot be restored'),
    response: DeleteServiceAccountResponseSchema,
    call: async (context, name: string) => {
      await requireYes(
        context,
        () =>
          `not deleted: its token is refused at once and cannot be restored. Confirm with: flowhook service-account delete ${shellArg(name)} --yes (or pause it instead: flowhook service-account disable ${shellArg(name)})`,
      );
      return context.client().deleteServiceAccount({ name });
    },
    lines: (_response, _context, name: string) => [`Deleted service account "${name}".`],
  });
}

function describe(account: ServiceAccountInfo): string {
  const parts = [`scope ${account.scope}`];
  if (account.scope !== 'admin')
    parts.push(
      companiesOf(account) === '-'
        ? account.scope === 'records'
          ? 'only executions it is handed'
          : 'no company'
        : `companies: ${companiesOf(account)}`,
    );
  if (account.forwardsCallers) parts.push('forwards callers');
  return parts.join(', ');
}

function companiesOf(account: ServiceAccountInfo): string {
  if (account.allCompanies) return 'all';
  return account.companies.length ? account.companies.join(', ') : '-';
}
