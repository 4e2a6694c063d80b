// The admin commands of `flowhook`: companies, flows,
// secrets, service users and applications, each a call to an admin service.
// Every command takes --json; the error contract is in admin-action.ts.
import { toJson } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Command } from 'commander';
import { CreateCompanyResponseSchema, ListCompaniesResponseSchema, RotateSecretResponseSchema } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { registerAppCommands } from './access-commands.ts';
import { adminAction, type AdminRuntime } from './admin-action.ts';
import { adminClientFromEnvironment, type AdminClient } from './admin-client.ts';
import { registerCompanyEgressCommands } from './company-egress-commands.ts';
import { registerConnectionCommands } from './connection-commands.ts';
import { registerFlowCommands } from './flow-commands.ts';
import type { Confirm } from './execution-rerun-command.ts';
import { registerHookSecretCommands } from './hook-secret-commands.ts';
import { registerSecretStoreCommands } from './secret-store-commands.ts';
import { registerUserCommands } from './user-commands.ts';
import { registerServiceAccountCommands } from './service-account-commands.ts';
import { printJson, printLines, processIo, shownOnce, table, type CliIo } from './output.ts';
import type { SecretStdin } from './secret-input.ts';

export interface AdminCommandDeps {
  /** The admin client, or a factory called on a command's first RPC. Default: built from the environment. */
  client?: AdminClient | (() => AdminClient);
  /** Default: the process's stdout and stderr. */
  io?: CliIo;
  /** Default: sets process.exitCode, so pending output is flushed before exit. */
  setExitCode?: (code: number) => void;
  /** Where `connection set` and `hook-secret set` read a secret given by no file. Default: the process's stdin. */
  secretStdin?: () => SecretStdin;
  /** How `flow apply` asks before moving a published flow. Default: a question on the terminal, none elsewhere. */
  confirm?: Confirm;
}

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

export function registerAdminCommands(program: Command, deps: AdminCommandDeps = {}): void {
  const supplied = deps.client;
  const runtime: AdminRuntime = {
    client: typeof supplied === 'function' ? supplied : supplied ? () => supplied : adminClientFromEnvironment,
    io: deps.io ?? processIo,
    setExitCode: deps.setExitCode ?? ((code) => void (process.exitCode = code)),
  };

  const company = program.command('company').description('companies: the tenants flows run in');
  company
    .command('create')
    .description('create a company')
    .argument('<name>')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, name: string) => {
        const response = await context.client().createCompany({ name });
        if (context.json) return printJson(context.io, toJson(CreateCompanyResponseSchema, response, JSON_OPTIONS));
        printLines(context.io, [`Created company "${response.company?.name ?? name}".`]);
      }),
    );
  company
    .command('list')
    .description('list companies')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context) => {
        const response = await context.client().listCompanies({});
        if (context.json) return printJson(context.io, toJson(ListCompaniesResponseSchema, response, JSON_OPTIONS));
        if (response.companies.length === 0) return printLines(context.io, ['No companies yet. Create one with: flowhook company create <name>']);
        const rows = response.companies.map((c) => [c.name, c.createdAt ? timestampDate(c.createdAt).toISOString() : '']);
        printLines(context.io, table(['NAME', 'CREATED'], rows));
      }),
    );
  registerCompanyEgressCommands(company, runtime);

  registerFlowCommands(program, runtime, deps.confirm);
  registerConnectionCommands(program, runtime, { stdin: deps.secretStdin });

  program
    .command('secret')
    .description("a flow's webhook secret, the one its callers send with the activity")
    .command('rotate')
    .description('generate a new secret for an activity; the previous one stops working at once')
    .argument('<company>')
    .argument('<activity>')
    .option('--json', 'print the response as JSON (it holds the secret)')
    .action(
      adminAction(runtime, async (context, companyName: string, activity: string) => {
        const response = await context.client().rotateSecret({ company: companyName, activity });
        if (context.json) return printJson(context.io, toJson(RotateSecretResponseSchema, response, JSON_OPTIONS));
        const flow = response.flow;
        printLines(context.io, [
          `New secret for activity ${flow?.activity || activity} (flow "${flow?.name ?? ''}", company ${flow?.company || companyName}); the previous secret no longer works.`,
          ...shownOnce('secret', response.secret),
        ]);
      }),
    );
  registerSecretStoreCommands(program, runtime);
  registerHookSecretCommands(program, runtime, { stdin: deps.secretStdin });

  registerUserCommands(program, runtime);
  registerServiceAccountCommands(program, runtime);
  registerAppCommands(program, runtime);
}
