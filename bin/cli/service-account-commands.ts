// `flowhook service-account …`: the identities that call the engine's RPC
// port (facade, workers, CLI, your own services), each command one call to
// ServiceAccountAdminService. Only create and rotate print a token, once.
// `delete` cannot be undone, so it needs --yes.
import { toJson } from '@bufbuild/protobuf';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import type { Command } from 'commander';
import {
  CreateServiceAccountResponseSchema,
  DeleteServiceAccountResponseSchema,
  ListServiceAccountsResponseSchema,
  RotateServiceAccountTokenResponseSchema,
  SetServiceAccountStateResponseSchema,
  type ServiceAccountInfo,
} from '../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { adminAction, CliError, type AdminRuntime } from './admin-action.ts';
import { printJson, printLines, shellArg, shownOnce, table } from './output.ts';

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

const SCOPE_HELP = 'invoke (WebhookService), records (RecordService, OutboundService, CallbackService) or admin (the admin services)';

export function registerServiceAccountCommands(program: Command, runtime: AdminRuntime): void {
  const accounts = program.command('service-account').description('identities that call the engine over gRPC/Connect: facade, workers, CLI and your own services');
  accounts
    .command('create')
    .description('create a service account and print its token once')
    .argument('<name>')
    .requiredOption('--scope <scope>', SCOPE_HELP)
    .option('--company <name>', 'a company it acts for (repeatable); invoke accounts need one, or --all-companies', collect, [])
    .option('--all-companies', 'act for every company, including ones created later')
    .option('--forwards-callers', "the facade's account only: may pass on a Basic user or OAuth application it verified")
    .option('--json', 'print the response as JSON (it holds the token)')
    .action(
      adminAction(runtime, async (context, name: string) => {
        const options = context.options as { scope: string; company: string[]; allCompanies?: boolean; forwardsCallers?: boolean };
        const response = await context.client().createServiceAccount({
          name,
          scope: options.scope,
          companies: options.company,
          allCompanies: options.allCompanies === true,
          forwardsCallers: options.forwardsCallers === true,
        });
        if (context.json) return printJson(context.io, toJson(CreateServiceAccountResponseSchema, response, JSON_OPTIONS));
        const account = response.account!;
        printLines(context.io, [
          `Created service account "${account.name}" (${describe(account)}).`,
          ...shownOnce('token', response.token),
          `  The service sends it as: authorization: Bearer <token>  (facade and workers read it from FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE)`,
        ]);
      }),
    );
  accounts
    .command('list')
    .description('list service accounts with scope, companies and state (never a token)')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context) => {
        const response = await context.client().listServiceAccounts({});
        if (context.json) return printJson(context.io, toJson(ListServiceAccountsResponseSchema, response, JSON_OPTIONS));
        if (response.accounts.length === 0)
          return printLines(context.io, ['No service accounts yet. Create one with: flowhook service-account create <name> --scope invoke --company <company>']);
        const rows = response.accounts.map((a) => [
          a.name,
          a.scope,
          companiesOf(a),
          a.forwardsCallers ? 'yes' : 'no',
          a.enabled ? 'enabled' : 'disabled',
          a.tokenHint,
          time(a.rotatedAt ?? a.createdAt),
        ]);
        printLines(context.io, table(['NAME', 'SCOPE', 'COMPANIES', 'FORWARDS CALLERS', 'STATE', 'TOKEN', 'TOKEN SINCE'], rows));
      }),
    );
  for (const [command, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    accounts
      .command(command)
      .description(enabled ? 'enable a service account again (its current token works again)' : 'disable a service account: its calls get UNAUTHENTICATED at once, in every engine')
      .argument('<name>')
      .option('--json', 'print the response as JSON')
      .action(
        adminAction(runtime, async (context, name: string) => {
          const response = await context.client().setServiceAccountState({ name, enabled });
          if (context.json) return printJson(context.io, toJson(SetServiceAccountStateResponseSchema, response, JSON_OPTIONS));
          printLines(context.io, [`Service account "${response.account!.name}" is ${enabled ? 'enabled' : 'disabled'}.`]);
        }),
      );
  }
  accounts
    .command('rotate')
    .description('replace the token at once (the old one is refused from the next call) and print the new one once')
    .argument('<name>')
    .option('--json', 'print the response as JSON (it holds the token)')
    .action(
      adminAction(runtime, async (context, name: string) => {
        const response = await context.client().rotateServiceAccountToken({ name });
        if (context.json) return printJson(context.io, toJson(RotateServiceAccountTokenResponseSchema, response, JSON_OPTIONS));
        printLines(context.io, [`New token for service account "${response.account!.name}"; the previous token no longer works.`, ...shownOnce('token', response.token)]);
      }),
    );
  accounts
    .command('delete')
    .description('delete a service account: its token is refused at once (needs --yes)')
    .argument('<name>')
    .option('--yes', 'confirm: the account cannot be restored')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, name: string) => {
        if (context.options.yes !== true) {
          throw new CliError(
            `not deleted: its token is refused at once and cannot be restored. Confirm with: flowhook service-account delete ${shellArg(name)} --yes (or pause it instead: flowhook service-account disable ${shellArg(name)})`,
            Code.FailedPrecondition,
          );
        }
        const response = await context.client().deleteServiceAccount({ name });
        if (context.json) return printJson(context.io, toJson(DeleteServiceAccountResponseSchema, response, JSON_OPTIONS));
        printLines(context.io, [`Deleted service account "${name}".`]);
      }),
    );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function describe(account: ServiceAccountInfo): string {
  const parts = [`scope ${account.scope}`];
  if (account.scope !== 'admin')
    parts.push(companiesOf(account) === '-' ? (account.scope === 'records' ? 'only executions it is handed' : 'no company') : `companies: ${companiesOf(account)}`);
  if (account.forwardsCallers) parts.push('forwards callers');
  return parts.join(', ');
}

function companiesOf(account: ServiceAccountInfo): string {
  if (account.allCompanies) return 'all';
  return account.companies.length ? account.companies.join(', ') : '-';
}

function time(timestamp: Timestamp | undefined): string {
  return timestamp ? timestampDate(timestamp).toISOString() : '';
}
