// Identity-provider applications (`app …`, the OAuth 2.0 path), each a call to
// AppAdminService. An application is its issuer's client id, so `register`
// always names the issuer (a client id alone would let any trusted issuer's
// token with that id in); `--tenant` narrows it to one tenant of the issuer.
// A permission set is for one company unless --all-companies says otherwise
// (the engine refuses a set with neither). The Basic path's service users are
// in user-commands.ts.
import { Option, type Command } from 'commander';
import {
  AppState,
  ListAppsResponseSchema,
  RegisterAppResponseSchema,
  RevokeAppConsentResponseSchema,
  SetAppStateResponseSchema,
  type App,
} from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import type { AdminContext, AdminRuntime } from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';
import { table, yesNo } from './output.ts';

export function registerAppCommands(program: Command, runtime: AdminRuntime): void {
  const app = program
    .command('app')
    .description('identity-provider applications that call with OAuth 2.0 client-credentials tokens');
  rpcCommand(runtime, app.command('register <clientId>'), {
    description:
      'add an application by its issuer and client id, or update it: tenant, description, consent, a permission set for a company',
    options: (command) =>
      command
        .requiredOption(
          '--issuer <url>',
          "the token issuer (`iss`) whose tokens carry this client id, one of the facade's FLOWHOOK_OAUTH_ISSUERS; tokens from any other issuer are refused",
        )
        .addOption(
          new Option('--tenant <id>', 'accept only tokens naming this tenant (`tid`, Microsoft Entra ID)').conflicts(
            'anyTenant',
          ),
        )
        .option('--any-tenant', 'drop a tenant given before: any tenant of the issuer')
        .addOption(
          new Option(
            '--company <name>',
            'company of the permission set; a set needs --company or --all-companies',
          ).conflicts('allCompanies'),
        )
        .option(
          '--all-companies',
          'assign the permission set in every company, also ones created later (never the default)',
        )
        .option(
          '--permission-set <set>',
          'FLOW INTEGR., the one set an application can have (FLOW ALL alone never lets it call; SUPER is never assignable)',
        )
        .option('--description <text>', 'what the application is')
        .option('--consent', 'grant consent (tokens of an application without consent are refused)')
        .option('--enabled', 'set State to Enabled (a new application starts Disabled)'),
    response: RegisterAppResponseSchema,
    call: (context, clientId: string) => {
      const options = context.options as {
        issuer: string;
        tenant?: string;
        anyTenant?: boolean;
        company?: string;
        allCompanies?: boolean;
        permissionSet?: string;
        description?: string;
        consent?: boolean;
        enabled?: boolean;
      };
      return context.client().registerApp({
        clientId,
        issuer: options.issuer,
        tenantId: options.tenant ?? '',
        anyTenant: options.anyTenant ?? false,
        company: options.company ?? '',
        allCompanies: options.allCompanies ?? false,
        permissionSet: options.permissionSet ?? '',
        description: options.description ?? '',
        consentGranted: options.consent ?? false,
        state: options.enabled ? AppState.ENABLED : AppState.UNSPECIFIED,
      });
    },
    lines: (response, _context, clientId: string) => {
      const lines = [
        `${response.created ? 'Registered' : 'Updated'} application ${clientId}.`,
        ...describeApp(response.app),
      ];
      if (response.app && (!response.app.consentGranted || response.app.state !== AppState.ENABLED)) {
        lines.push(
          `  Its tokens are refused until consent is granted and State is Enabled: flowhook app register ${clientId} --issuer ${response.app.issuer} --consent --enabled`,
        );
      }
      return lines;
    },
  });
  for (const [name, state] of [
    ['enable', AppState.ENABLED],
    ['disable', AppState.DISABLED],
  ] as const) {
    rpcCommand(runtime, app.command(`${name} <clientId>`), {
      description:
        state === AppState.ENABLED ? 'set State to Enabled' : 'set State to Disabled: its tokens are refused at once',
      options: issuerOption,
      response: SetAppStateResponseSchema,
      call: (context, clientId: string) => context.client().setAppState({ clientId, state, issuer: issuerOf(context) }),
      lines: (_response, _context, clientId: string) => [`Application ${clientId} is ${stateName(state)}.`],
    });
  }
  rpcCommand(runtime, app.command('revoke-consent <clientId>'), {
    description:
      'withdraw consent: its tokens are refused at once; permission sets and State stay (register with --consent to restore)',
    options: issuerOption,
    response: RevokeAppConsentResponseSchema,
    call: (context, clientId: string) => context.client().revokeAppConsent({ clientId, issuer: issuerOf(context) }),
    lines: (response, _context, clientId: string) => [
      response.wasGranted
        ? `Revoked consent of application ${clientId}: its tokens are refused from the next call on.`
        : `Application ${clientId} had no consent; its tokens stay refused.`,
      ...describeApp(response.app),
      `  Restore consent with: flowhook app register ${clientId} --issuer ${response.app?.issuer ?? '<url>'} --consent`,
    ],
  });
  rpcCommand(runtime, app.command('list'), {
    description: 'list applications',
    response: ListAppsResponseSchema,
    call: (context) => context.client().listApps({}),
    lines: ({ apps }) => {
      if (apps.length === 0)
        return [
          'No applications yet. Add one with: flowhook app register <clientId> --issuer <url> --consent --enabled --company <company> --permission-set "FLOW INTEGR."',
        ];
      const rows = apps.map((a) => [
        a.clientId,
        a.issuer || UNSET_ISSUER,
        a.tenantId || 'any',
        stateName(a.state),
        yesNo(a.consentGranted),
        permissionSets(a),
        a.description,
      ]);
      const lines = table(
        ['CLIENT ID', 'ISSUER', 'TENANT', 'STATE', 'CONSENT', 'PERMISSION SETS', 'DESCRIPTION'],
        rows,
      );
      if (apps.some((a) => !a.issuer))
        lines.push(
          `Applications with issuer ${UNSET_ISSUER} were registered before issuers were bound; bind each: flowhook app register <clientId> --issuer <url>`,
        );
      return lines;
    },
  });
}

/** How `list` shows a registration from before issuers were bound: its tokens are all refused. */
const UNSET_ISSUER = '(unset: refused)';

/** `--issuer`, of every command acting on one registration (`app <name> <clientId>`). */
function issuerOption(command: Command): Command {
  return command.option(
    '--issuer <url>',
    'which registration, when the client id is registered under more than one issuer',
  );
}

function issuerOf(context: AdminContext): string {
  return (context.options.issuer as string | undefined) ?? '';
}

function describeApp(app: App | undefined): string[] {
  if (!app) return [];
  return [
    `  state ${stateName(app.state)}, consent ${yesNo(app.consentGranted)}, permission sets: ${permissionSets(app) || 'none'}`,
    `  issuer ${app.issuer || UNSET_ISSUER}, tenant ${app.tenantId || 'any'}`,
  ];
}

function permissionSets(app: App): string {
  return app.permissionSets.map((set) => `${set.permissionSet} (${set.company || 'all companies'})`).join(', ');
}

function stateName(state: AppState): string {
  return state === AppState.ENABLED ? 'Enabled' : 'Disabled';
}
