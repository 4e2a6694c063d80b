// `flowhook <command> --help` ends with the environment variables that command reads, so nobody
// has to search the docs for them. The lists come from the configuration table's "processes"
// column (common/configuration/configuration-table.ts), the same rows the processes read through.
import type { Command } from 'commander';
import { CONFIGURATION_TABLE } from '../../common/configuration/configuration-table.ts';
import type { AnySetting, ProcessName } from '../../common/configuration/setting.ts';

export interface EnvironmentVariable {
  name: string;
  meaning: string;
}

/** The commands that are readers of their own; every other command is an admin command (`cli`). */
const PROCESS_COMMANDS: Readonly<Record<string, ProcessName>> = {
  start: 'start',
  engine: 'engine',
  facade: 'facade',
  worker: 'worker',
  'payload-key rotate': 'payload-key',
  // It finds the Temporal CLI and the dev server's address as start does.
  temporal: 'start',
};

/** Commands that read no environment at all (e.g. `flow schema` prints a file). */
const READS_NOTHING = new Set(['flow schema', 'help']);

/** `start` hands its environment on: the components' variables apply as well. */
const START_NOTE =
  '\n\nengine, worker and facade read their own variables from the same environment (flowhook engine|worker|facade --help).';

/** The reader whose variables a command reads (`user create` → `cli`), or undefined when it reads none; `path` is its words after `flowhook`. */
export function environmentReaderOf(path: string): ProcessName | undefined {
  if (READS_NOTHING.has(path)) return undefined;
  return PROCESS_COMMANDS[path] ?? 'cli';
}

/** The variables `reader` reads, each with what it means to that reader and its default. */
export function environmentOf(reader: ProcessName): EnvironmentVariable[] {
  const rows = (Object.entries(CONFIGURATION_TABLE) as [string, AnySetting][]).filter(
    ([, row]) => !row.internal && row.retired === undefined,
  );
  const own = rows
    .filter(([, row]) => row.processes.includes(reader))
    .map(([name, row]) => ({ name, meaning: plain(row.roles?.[reader] ?? withDefault(row, reader)) }));
  if (reader !== 'start') return own;
  // start listens on its components' ports too: every port it opens is named here, so a user
  // whose port is taken finds the variable that moves it without reading three other helps.
  const listed = new Set(own.map((variable) => variable.name));
  const componentPorts = rows
    .filter(
      ([name, row]) =>
        name.endsWith('_PORT') &&
        !listed.has(name) &&
        COMPONENTS.some((component) => row.processes.includes(component)),
    )
    .map(([name, row]) => ({
      name,
      meaning: plain(
        withDefault(
          row,
          COMPONENTS.find((component) => row.processes.includes(component))!,
        ),
      ),
    }));
  return [...own, ...componentPorts];
}

const COMPONENTS: readonly ProcessName[] = ['facade', 'engine', 'worker'];

/** Adds an "Environment:" section to the help of every command (admin commands: the admin variables). */
export function addEnvironmentHelp(program: Command): void {
  for (const command of program.commands) visit(command, []);

  function visit(command: Command, parents: string[]): void {
    const path = [...parents, command.name()];
    const key = path.join(' ');
    if (command.commands.length > 0) {
      for (const child of command.commands) visit(child, path);
      return;
    }
    const reader = environmentReaderOf(key);
    if (reader === undefined) return;
    command.addHelpText(
      'after',
      () => environmentSection(environmentOf(reader)) + (reader === 'start' ? START_NOTE : ''),
    );
  }
}

export function environmentSection(variables: readonly EnvironmentVariable[]): string {
  const width = Math.max(...variables.map((variable) => variable.name.length));
  return [
    '',
    'Environment:',
    ...variables.map((variable) => `  ${variable.name.padEnd(width)}  ${variable.meaning}`),
  ].join('\n');
}

function withDefault(row: AnySetting, reader: ProcessName): string {
  const computed = row.computedBy?.includes(reader);
  const value = row.defaultText ?? (row.default === undefined || computed ? undefined : row.type.format(row.default));
  return value === undefined ? row.meaning : `${row.meaning} (default ${value})`;
}

/** The table is written for the reference (Markdown); a terminal shows the words. */
function plain(text: string): string {
  return text.replaceAll('**', '').replaceAll('`', '');
}
