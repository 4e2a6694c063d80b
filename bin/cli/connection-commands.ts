// Connections (`connection set|list|show|delete`), each a call to
// ConnectionAdminService. A connection's secret is read from a file or stdin
// (never argv) and appears in no output: the engine never returns it.
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  DeleteConnectionResponseSchema,
  GetConnectionResponseSchema,
  ListConnectionsResponseSchema,
  SetConnectionResponseSchema,
  type Connection,
  type ConnectionSettings,
  type ConnectionType,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import type { ConnectionKind } from '../../flow/connection-kinds/connection-kind.ts';
import {
  CONNECTION_KINDS,
  connectionKind,
  connectionKindNamed,
} from '../../flow/connection-kinds/connection-kind-registry.ts';
import {
  KIND_SETTINGS,
  kindSettingsOf,
  type KindSettingName,
} from '../../flow/connection-kinds/connection-settings.ts';
import { UsageError, type AdminRuntime } from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';
import { card, shellArg, tableOr, timeText } from './output.ts';
import { collectList } from './option-values.ts';
import { readRequiredSecret, type SecretStdinDeps } from './secret-input.ts';

const KIND_NAMES = CONNECTION_KINDS.map((kind) => kind.name).join(', ');
const ALERT_KIND_NAMES = CONNECTION_KINDS.filter((kind) => kind.purpose === 'alerts')
  .map((kind) => kind.name)
  .join(', ');
/** "API key, password, token or client secret". */
const SECRET_NAMES = [...new Set(CONNECTION_KINDS.map((kind) => kind.secretName))]
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

interface SetOptions {
  type: ConnectionKind;
  baseUrl?: string;
  allowedHost?: string[];
  secretFile?: string;
}

/**
 * The `connection set` option of each kind setting, its help naming the kinds that use it ("api-key: the
 * header that carries the key …"). New ones per program: an Option belongs to the command it is added to.
 */
function kindSettingOptions(): { name: KindSettingName; option: Option }[] {
  return KIND_SETTINGS.map(({ name, flags }) => {
    const uses = CONNECTION_KINDS.flatMap((kind) =>
      kind.settings.filter((use) => use.name === name).map((use) => `${kind.name}: ${use.help}`),
    );
    return { name, option: new Option(flags, uses.join('; ')) };
  });
}

export function registerConnectionCommands(program: Command, runtime: AdminRuntime, deps: SecretStdinDeps = {}): void {
  const connection = program
    .command('connection')
    .description(
      'named, company-scoped credentials that httpRequest steps call other systems with, and the channels alerts are sent through',
    );
  const settingOptions = kindSettingOptions();
  rpcCommand(
    runtime,
    connection
      .command('set <company>')
      .argument('<name>', 'the name httpRequest steps refer to (letters, digits, _, - or .)'),
    {
      description:
        'create or replace a connection; its secret is read from --secret-file or stdin and stored encrypted',
      options: (command) => {
        command
          .requiredOption(
            '--type <type>',
            `how requests authenticate, or the alert channel (${ALERT_KIND_NAMES}): ${KIND_NAMES}`,
            parseKind,
          )
          .option(
            '--base-url <url>',
            'requests go to this origin and path prefix; relative step URLs resolve against it (webhook: the URL alert messages are posted to)',
          )
          .option(
            '--allowed-host <host>',
            'another origin the credentials may be sent to: host or host:port (https), or http://host[:port]; repeatable or comma-separated',
            collectList,
          );
        for (const { option } of settingOptions) command.addOption(option);
        return command.option(
          '--secret-file <path>',
          `read the secret (${SECRET_NAMES}) from this file, one trailing line break removed; "-" for stdin. Without it the secret is read from stdin (typed hidden at a terminal). The secret is never accepted on the command line.`,
        );
      },
      jsonHolds: 'no secret',
      response: SetConnectionResponseSchema,
      call: async (context, company: string, name: string) => {
        const options = context.options as unknown as SetOptions;
        const kind = options.type;
        const given = Object.fromEntries(
          settingOptions.map(({ name, option }) => [
            name,
            context.options[option.attributeName()] as string | undefined,
          ]),
        );
        const settings = {
          type: kind.type,
          baseUrl: options.baseUrl ?? '',
          allowedHosts: options.allowedHost ?? [],
          ...kindSettingsOf(given),
        };
        // Said before the secret is asked for, so nobody types it in vain.
        const optionOf = (setting: KindSettingName) => settingOptions.find(({ name }) => name === setting)!.option.long;
        const missing = kind.settings
          .filter((use) => use.required && isBlank(settings[use.name]))
          .map((use) => `${optionOf(use.name)} is required for ${kind.name} connections`);
        if (kind.purpose === 'alerts') {
          // An alert channel sends where its secret (a webhook URL) or its own settings say.
          if (kind.usesBaseUrl && !settings.baseUrl.trim())
            missing.push(`--base-url is required for ${kind.name} connections: where the alert messages are posted`);
        } else if (!settings.baseUrl.trim() && settings.allowedHosts.length === 0)
          missing.push('--base-url or --allowed-host is required, so the secret can only go where it is meant to');
        if (missing.length > 0) throw new UsageError(missing.join('; '));

        const secret = await readRequiredSecret({
          file: options.secretFile,
          stdin: deps.stdin,
          io: context.io,
          prompt: `Enter the ${kind.secretName} for connection "${name}" (input hidden), then press Enter:`,
          what: kind.secretName,
        });
        return context.client().setConnection({ company, name, settings, secret });
      },
      lines: ({ connection: stored, created }, context, company: string, name: string) => [
        `${created ? 'Created' : 'Updated'} connection "${stored?.name || name}" in company "${stored?.company || company}" (${typeName(stored?.settings?.type ?? (context.options.type as ConnectionKind).type)}, version ${stored?.version ?? 0}).`,
        ...card([
          ...settingsRows(stored?.settings),
          ['secret', `stored encrypted under key ${stored?.keyId || '?'} (never shown)`],
        ]),
      ],
    },
  );
  rpcCommand(runtime, connection.command('list'), {
    description: "list a company's connections and the published flows that use them",
    options: (command) => command.requiredOption('--company <name>', 'the company whose connections to list'),
    response: ListConnectionsResponseSchema,
    call: (context) => context.client().listConnections({ company: context.options.company as string }),
    lines: ({ connections }, context) => {
      const company = context.options.company as string;
      return tableOr(
        `No connections in company "${company}". Create one with: flowhook connection set ${shellArg(company)} <name> --type api-key --base-url https://… --secret-file <file>`,
        ['NAME', 'TYPE', 'TARGET', 'VERSION', 'USED BY'],
        connections.map((c) => [
          c.name,
          typeName(c.settings?.type),
          target(c.settings),
          String(c.version),
          c.usedByFlows.join(', ') || '-',
        ]),
      );
    },
  });
  rpcCommand(runtime, connection.command('show <company> <name>'), {
    description: "show a connection's settings (never its secret)",
    jsonHolds: 'no secret',
    response: GetConnectionResponseSchema,
    call: (context, company: string, name: string) => context.client().getConnection({ company, name }),
    lines: (response, _context, company: string, name: string) =>
      describeConnection(response.connection, company, name),
  });
  rpcCommand(runtime, connection.command('delete <company> <name>'), {
    description: 'delete a connection; refused while published flows use it, unless --yes',
    options: (command) =>
      command.option('--yes', 'confirm deleting it while published flows use it (their httpRequest steps then fail)'),
    response: DeleteConnectionResponseSchema,
    call: (context, company: string, name: string) =>
      context.client().deleteConnection({ company, name, force: context.options.yes === true }),
    lines: (_response, _context, company: string, name: string) => [
      `Deleted connection "${name}" from company "${company}".`,
    ],
  });
}

function parseKind(value: string): ConnectionKind {
  const kind = connectionKindNamed(value);
  if (!kind) throw new InvalidArgumentError(`expected one of ${KIND_NAMES}`);
  return kind;
}

function isBlank(value: string | string[]): boolean {
  return Array.isArray(value) ? value.length === 0 : value.trim() === '';
}

function typeName(type: ConnectionType | undefined): string {
  return (type !== undefined && connectionKind(type)?.name) || 'unknown';
}

/** Where a connection's credentials go: its base URL and allowed hosts. */
function target(settings: ConnectionSettings | undefined): string {
  if (!settings) return '';
  return [settings.baseUrl, ...settings.allowedHosts, settings.smtpHost].filter((entry) => entry !== '').join(', ');
}

function settingsRows(settings: ConnectionSettings | undefined): [string, string | undefined][] {
  if (!settings) return [];
  const kind = connectionKind(settings.type);
  // An empty setting the kind fills in itself shows what it uses: "X-API-Key (default)".
  const shown = (name: KindSettingName) => {
    const fallback = kind?.settings.find((use) => use.name === name)?.default;
    return settings[name] || (fallback && `${fallback} (default)`) || undefined;
  };
  return [
    ['type', typeName(settings.type)],
    ['base URL', settings.baseUrl || undefined],
    ['allowed hosts', settings.allowedHosts.join(', ') || undefined],
    ...KIND_SETTINGS.map(({ name, label }): [string, string | undefined] => [label, shown(name)]),
  ];
}

function describeConnection(connection: Connection | undefined, company: string, name: string): string[] {
  if (!connection) return [`Connection "${name}" in company "${company}"`];
  return [
    `Connection "${connection.name}" in company "${connection.company}"`,
    ...card([
      ...settingsRows(connection.settings),
      ['version', String(connection.version)],
      ['secret', 'stored encrypted (never shown)'],
      ['key id', connection.keyId || undefined],
      ['created', timeText(connection.createdAt) || undefined],
      ['updated', timeText(connection.updatedAt) || undefined],
      ['used by', connection.usedByFlows.join(', ') || 'no published flow'],
    ]),
  ];
}
