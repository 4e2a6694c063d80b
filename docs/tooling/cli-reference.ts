// The CLI reference (docs/reference/cli.md), read off the command tree that
// `flowhook` parses with (bin/cli/cli-program.ts): every command with its
// arguments and options as --help shows them, the environment variables it
// reads (the configuration table's "processes" column, as in --help), the exit
// codes, and the old spellings that still work. Hidden options are left out.
import type { Argument, Command, Option } from 'commander';
import { cliCommandTree, USAGE_EXIT_CODE } from '../../bin/cli/cli-program.ts';
import { DEPRECATED_SPELLINGS } from '../../bin/cli/deprecated-spellings.ts';
import { environmentOf, environmentReaderOf } from '../../bin/cli/environment-help.ts';
import { CONFIGURATION_TABLE } from '../../common/configuration/configuration-table.ts';
import { PROCESS_TITLES, type AnySetting, type ProcessName } from '../../common/configuration/setting.ts';
import { slug } from './markdown-outline.ts';
import { code, fenced, sentence, table } from './markdown.ts';

/** Where the configuration reference is, from the CLI reference. */
const CONFIGURATION_PAGE = 'configuration.md';

interface Leaf {
  path: string;
  command: Command;
}

export function renderCliReference(): string {
  const program = cliCommandTree();
  const groups = program.commands.map((command) => ({ command, leaves: leavesOf(command, []) }));
  return [
    '## Commands',
    '',
    table(
      ['command', 'what it does'],
      groups.flatMap(({ leaves }) =>
        leaves.map(({ path, command }) => [
          `[${code(`flowhook ${path}`)}](#${slug(`flowhook ${path}`)})`,
          command.description(),
        ]),
      ),
    ),
    '',
    '## Exit codes',
    '',
    table(
      ['code', 'meaning'],
      [
        ['`0`', 'the command did what it says'],
        [
          '`1`',
          'it failed: the engine refused or is unreachable, no admin token, a file is wrong, a confirmation (`--yes`) is missing',
        ],
        [
          `\`${USAGE_EXIT_CODE}\``,
          'usage error: an unknown command or option, a missing or extra argument, an invalid option value, options that exclude each other — nothing was sent, and stderr shows the usage',
        ],
      ],
    ),
    ...groups.flatMap(({ command, leaves }, index) =>
      renderGroup(command, leaves, index === 0 || !isProcess(groups[index - 1]!)),
    ),
    '',
    '## Environment of the admin commands',
    '',
    `Every command above that is not a process of its own (\`start\`, \`engine\`, \`facade\`, \`worker\`) or \`payload-key rotate\` is an admin command: it calls the engine's admin services and reads these variables (${PROCESS_TITLES.cli} in [the configuration reference](${CONFIGURATION_PAGE})).`,
    '',
    environmentList('cli'),
    '',
    '## Deprecated spellings',
    '',
    'These still work in this release and print one line on stderr naming the new spelling (never on stdout, so `--json` output stays one document). They are in no `--help` and go in the next release.',
    '',
    table(
      ['old spelling', 'use'],
      DEPRECATED_SPELLINGS.map(({ old, now }) => [code(`flowhook ${old}`), code(`flowhook ${now}`)]),
    ),
  ].join('\n');
}

function leavesOf(command: Command, parents: string[]): Leaf[] {
  const path = [...parents, command.name()];
  if (command.commands.length === 0) return [{ path: path.join(' '), command }];
  return command.commands.flatMap((child) => leavesOf(child, path));
}

/** A top-level command without subcommands (`start`, `engine`, …): these share one heading. */
function isProcess({ command, leaves }: { command: Command; leaves: Leaf[] }): boolean {
  return leaves.length === 1 && leaves[0]!.command === command;
}

function renderGroup(group: Command, leaves: Leaf[], first: boolean): string[] {
  const heading = isProcess({ command: group, leaves })
    ? first
      ? ['', '## Processes', '', 'Each runs one long-lived process; `start` runs all of them on embedded defaults.']
      : []
    : ['', `## flowhook ${group.name()}`, '', sentence(capitalised(group.description()))];
  return [...heading, ...leaves.flatMap(renderLeaf)];
}

function renderLeaf({ path, command }: Leaf): string[] {
  const options = command.options.filter((option) => !option.hidden);
  const reader = environmentReaderOf(path);
  return [
    '',
    `### flowhook ${path}`,
    '',
    sentence(capitalised(command.description())),
    '',
    fenced('', `flowhook ${path} ${command.usage()}`),
    ...argumentsPart(command.registeredArguments),
    ...(options.length > 0
      ? [
          '',
          table(
            ['option', 'meaning'],
            options.map((option) => [code(option.flags), optionMeaning(option)]),
          ),
        ]
      : []),
    '',
    reader === undefined
      ? 'Reads no environment variable.'
      : reader === 'cli'
        ? 'Environment: [the admin commands\u2019 variables](#environment-of-the-admin-commands).'
        : `Environment:\n\n${environmentList(reader)}`,
    ...(reader === 'start'
      ? ['', 'It hands its environment on: engine, worker and facade read their own variables from it (below).']
      : []),
  ];
}

function argumentsPart(args: readonly Argument[]): string[] {
  const described = args.filter((arg) => arg.description !== '');
  if (described.length === 0) return [];
  return [
    '',
    table(
      ['argument', 'meaning'],
      described.map((arg) => [code(argumentLabel(arg)), arg.description]),
    ),
  ];
}

function argumentLabel(arg: Argument): string {
  const name = `${arg.name()}${arg.variadic ? '...' : ''}`;
  return arg.required ? `<${name}>` : `[${name}]`;
}

function optionMeaning(option: Option): string {
  const notes: string[] = [];
  if (option.mandatory) notes.push('required');
  if (option.argChoices) notes.push(`one of ${option.argChoices.map((choice) => code(choice)).join(', ')}`);
  const fallback = option.defaultValue;
  if (fallback !== undefined && fallback !== false && !(Array.isArray(fallback) && fallback.length === 0))
    notes.push(`default ${code(String(fallback))}`);
  return [option.description, notes.length > 0 ? `(${notes.join('; ')})` : ''].filter(Boolean).join(' ');
}

/** The variables one reader reads, grouped as the configuration reference groups them, each group linking there. */
function environmentList(reader: ProcessName): string {
  const rows = CONFIGURATION_TABLE as Readonly<Record<string, AnySetting>>;
  const groups = new Map<string, string[]>();
  for (const { name } of environmentOf(reader)) {
    const group = rows[name]!.group;
    groups.set(group, [...(groups.get(group) ?? []), name]);
  }
  return [...groups]
    .map(
      ([group, names]) =>
        `- [${group}](${CONFIGURATION_PAGE}#${slug(group)}): ${names.map((name) => code(name)).join(', ')}`,
    )
    .join('\n');
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
