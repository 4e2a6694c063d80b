// Identity-provider applications (`app …`, spec §5.1), each a call to
// AppAdminService. The Basic path's service users are in user-commands.ts.
import { toJson } from '@bufbuild/protobuf';
import { InvalidArgumentError, type Command } from 'commander';
import {
  AppState,
  ListAppsResponseSchema,
  RegisterAppResponseSchema,
  SetAppStateResponseSchema,
  type App,
} from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { adminAction, type AdminRuntime } from './admin-action.ts';
import { printJson, printLines, table, yesNo } from './output.ts';

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

export function registerAppCommands(program: Command, runtime: AdminRuntime): void {
  const app = program.command('app').description('identity-provider applications that call with OAuth 2.0 client-credentials tokens');
  app
    .command('register')
    .description('add an application by its client id, or update it: description, consent, a permission set for a company')
    .argument('<clientId>')
    .option('--company <name>', 'company of the permission set (default: all companies)')
    .option('--permission-set <set>', 'FLOW INTEGR., the one set an application can have (FLOW ALL alone never lets it call; SUPER is never assignable)')
    .option('--description <text>', 'what the application is')
    .option('--consent', 'grant consent (tokens of an application without consent are refused)')
    .option('--enabled', 'set State to Enabled (a new application starts Disabled)')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, clientId: string) => {
        const options = context.options as { company?: string; permissionSet?: string; description?: string; consent?: boolean; enabled?: boolean };
        const response = await context.client().registerApp({
          clientId,
          company: options.company ?? '',
          permissionSet: options.permissionSet ?? '',
          description: options.description ?? '',
          consentGranted: options.consent ?? false,
          state: options.enabled ? AppState.ENABLED : AppState.UNSPECIFIED,
        });
        if (context.json) return printJson(context.io, toJson(RegisterAppResponseSchema, response, JSON_OPTIONS));
        const lines = [`${response.created ? 'Registered' : 'Updated'} application ${clientId}.`, ...describeApp(response.app)];
        if (response.app && (!response.app.consentGranted || response.app.state !== AppState.ENABLED)) {
          lines.push(`  Its tokens are refused until consent is granted and State is Enabled: flowhook app register ${clientId} --consent --enabled`);
        }
        printLines(context.io, lines);
      }),
    );
  for (const [name, state] of [['enable', AppState.ENABLED], ['disable', AppState.DISABLED]] as const) {
    app
      .command(name)
      .description(state === AppState.ENABLED ? 'set State to Enabled' : 'set State to Disabled: its tokens are refused at once')
      .argument('<clientId>')
      .option('--json', 'print the response as JSON')
      .action(
        adminAction(runtime, async (context, clientId: string) => {
          const response = await context.client().setAppState({ clientId, state });
          if (context.json) return printJson(context.io, toJson(SetAppStateResponseSchema, response, JSON_OPTIONS));
          printLines(context.io, [`Application ${clientId} is ${stateName(state)}.`]);
        }),
      );
  }
  app
    .command('list')
    .description('list applications')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context) => {
        const response = await context.client().listApps({});
        if (context.json) return printJson(context.io, toJson(ListAppsResponseSchema, response, JSON_OPTIONS));
        if (response.apps.length === 0) return printLines(context.io, ['No applications yet. Add one with: flowhook app register <clientId> --consent --enabled --permission-set "FLOW INTEGR."']);
        const rows = response.apps.map((a) => [a.clientId, stateName(a.state), yesNo(a.consentGranted), permissionSets(a), a.description]);
        printLines(context.io, table(['CLIENT ID', 'STATE', 'CONSENT', 'PERMISSION SETS', 'DESCRIPTION'], rows));
      }),
    );
}

export function isoTimestamp(value: string): Date {
  // Date.parse accepts far more than ISO 8601; insist on a date at least.
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) throw new InvalidArgumentError('expected an ISO 8601 timestamp such as 2026-12-31T23:59:59Z');
  return date;
}

function describeApp(app: App | undefined): string[] {
  if (!app) return [];
  return [`  state ${stateName(app.state)}, consent ${yesNo(app.consentGranted)}, permission sets: ${permissionSets(app) || 'none'}`];
}

function permissionSets(app: App): string {
  return app.permissionSets.map((set) => `${set.permissionSet} (${set.company || 'all companies'})`).join(', ');
}

function stateName(state: AppState): string {
  return state === AppState.ENABLED ? 'Enabled' : 'Disabled';
}
