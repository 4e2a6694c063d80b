// The admin commands of `flowhook`: companies, flows,
// secrets, service users and applications, each a call to an admin service.
// Every command takes --json; the error contract is in admin-action.ts.
import type { Command } from 'commander';
import {
  CreateCompanyResponseSchema,
  ListCompaniesResponseSchema,
  RotateSecretResponseSchema,
} from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { registerAppCommands } from './access-commands.ts';
import { commandRuntime } from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';
import { adminClientFromEnvironment, type AdminClient } from './admin-client.ts';
import { registerCompanyEgressCommands } from './company-egress-commands.ts';
import { registerConnectionCommands } from './connection-commands.ts';
import { registerFlowCommands } from './flow-commands.ts';
import type { Confirm } from './execution-rerun-command.ts';
import { registerHookSecretCommands } from './hook-secret-commands.ts';
import { registerSecretStoreCommands } from './secret-store-commands.ts';
import { registerUserCommands } from './user-commands.ts';
import { registerServiceAccountCommands } from './service-account-commands.ts';
import { shownOnce, tableOr, timeText, type CliIo } from './output.ts';
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

export function registerAdminCommands(program: Command, deps: AdminCommandDeps = {}): void {
  const supplied = deps.client;
  const runtime = commandRuntime(
    { ...deps, client: typeof supplied === 'object' ? () => supplied : supplied },
    adminClientFromEnvironment,
  );

  const company = program.command('company').description('companies: the tenants flows run in');
  rpcCommand(runtime, company.command('create <name>'), {
    description: 'create a company',
    response: CreateCompanyResponseSchema,
    call: (context, name: string) => context.client().createCompany({ name }),
    lines: (response, _context, name: string) => [`Created company "${response.company?.name ?? name}".`],
  });
  rpcCommand(runtime, company.command('list'), {
    description: 'list companies',
    response: ListCompaniesResponseSchema,
    call: (context) => context.client().listCompanies({}),
    lines: ({ companies }) =>
      tableOr(
        'No companies yet. Create one with: flowhook company create <name>',
        ['NAME', 'CREATED'],
        companies.map((c) => [c.name, timeText(c.createdAt)]),
      ),
  });
  registerCompanyEgressCommands(company, runtime);

  registerFlowCommands(program, runtime, deps.confirm);
  registerConnectionCommands(program, runtime, { stdin: deps.secretStdin });

  const secret = program
    .command('secret')
    .description("a flow's webhook secret, the one its callers send with the activity");
  rpcCommand(runtime, secret.command('rotate <company> <activity>'), {
    description: 'generate a new secret for an activity; the previous one stops working at once',
    jsonHolds: 'the secret',
    response: RotateSecretResponseSchema,
    call: (context, companyName: string, activity: string) =>
      context.client().rotateSecret({ company: companyName, activity }),
    lines: ({ flow, secret }, _context, companyName: string, activity: string) => [
      `New secret for activity ${flow?.activity || activity} (flow "${flow?.name ?? ''}", company ${flow?.company || companyName}); the previous secret no longer works.`,
      ...shownOnce('secret', secret),
    ],
  });
  registerSecretStoreCommands(program, runtime);
  registerHookSecretCommands(program, runtime, { stdin: deps.secretStdin });

  registerUserCommands(program, runtime);
  registerServiceAccountCommands(program, runtime);
  registerAppCommands(program, runtime);
}
