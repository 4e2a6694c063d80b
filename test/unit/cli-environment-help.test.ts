// `--help` lists the variables each command reads, from the configuration table's "processes"
// column: every variable a process reads through the table is in its command's help, and an
// admin command's help names the admin variables only.
import test from 'ava';
import { Command } from 'commander';
import { CONFIGURATION_TABLE } from '../../common/configuration/configuration-table.ts';
import type { AnySetting, ProcessName } from '../../common/configuration/setting.ts';
import { addEnvironmentHelp } from '../../bin/cli/environment-help.ts';
import { registerAdminCommands } from '../../bin/cli/admin-commands.ts';
import { registerPayloadKeyCommands } from '../../bin/cli/payload-key-commands.ts';
import { registerProcessCommands } from '../../bin/cli/process-commands.ts';

function helpOf(...path: string[]): string {
  const program = new Command('flowhook');
  registerProcessCommands(program);
  registerAdminCommands(program, {
    client: () => {
      throw new Error('no engine in this test');
    },
  });
  registerPayloadKeyCommands(program);
  addEnvironmentHelp(program);
  let command = program;
  for (const name of path) command = command.commands.find((child) => child.name() === name)!;
  let text = '';
  command.configureOutput({ writeOut: (chunk) => void (text += chunk) });
  command.outputHelp();
  return text;
}

function listed(help: string): string[] {
  const section = help.slice(help.indexOf('Environment:'));
  return [...section.matchAll(/^ {2}([A-Z][A-Z0-9_]+) /gm)].map(([, name]) => name!);
}

function readBy(reader: ProcessName): string[] {
  return (Object.entries(CONFIGURATION_TABLE) as [string, AnySetting][])
    .filter(([, row]) => row.processes.includes(reader) && !row.internal && row.retired === undefined)
    .map(([name]) => name);
}

const COMMANDS: [string[], ProcessName][] = [
  [['engine'], 'engine'],
  [['facade'], 'facade'],
  [['worker'], 'worker'],
  [['start'], 'start'],
  [['user', 'create'], 'cli'],
  [['payload-key', 'rotate'], 'payload-key'],
];

/** start runs the components: their ports are in its help too (the test below). */
const componentPort = (name: string) =>
  name.endsWith('_PORT') &&
  (['engine', 'facade', 'worker'] as ProcessName[]).some((reader) => readBy(reader).includes(name));

for (const [path, reader] of COMMANDS) {
  test(`the help of ${path.join(' ')} lists exactly the variables the ${reader} reads`, (t) => {
    const extra =
      reader === 'start' ? (name: string) => componentPort(name) && !readBy('start').includes(name) : () => false;
    t.deepEqual(
      listed(helpOf(...path))
        .filter((name) => !extra(name))
        .sort(),
      readBy(reader).sort(),
    );
  });
}

test('each line says what the variable means to that command, with its default', (t) => {
  t.regex(helpOf('worker'), /Environment:\n[\s\S]*FLOWHOOK_EGRESS_ALLOW/);
  t.regex(helpOf('worker'), /FLOWHOOK_FACADE_PORT\s+refused to flows/);
  t.regex(helpOf('facade'), /FLOWHOOK_FACADE_PORT\s+the OData endpoint's port \(default 7048\)/);
  t.regex(helpOf('start'), /FLOWHOOK_FACADE_HOST\s+default 127\.0\.0\.1/);
  t.regex(helpOf('start'), /TEMPORAL_CLI\s+the Temporal CLI that runs the dev server/);
  t.regex(helpOf('start'), /engine, worker and facade read their own variables from the same environment/);
  t.regex(helpOf('engine'), /FLOWHOOK_RATE_LIMIT_PER_CALLER_BURST\s+.*\(default twice the rate\)/);
  t.regex(helpOf('user', 'create'), /Environment:\n\s+FLOWHOOK_ENGINE_URL[\s\S]*FLOWHOOK_ADMIN_TOKEN/);
  t.notRegex(helpOf('user', 'create'), /FLOWHOOK_EGRESS_ALLOW/);
  // Retired and internal variables are for the reference, not for help.
  t.notRegex(helpOf('engine'), /FLOWHOOK_SERVICE_TOKEN|FLOWHOOK_HEAP_TUNED/);
  t.notRegex(helpOf('facade'), /`|\*\*/, 'Markdown is for the reference');
});

test('start --help names every port start listens on, its components’ included', (t) => {
  const help = helpOf('start');
  const ports = (Object.entries(CONFIGURATION_TABLE) as [string, AnySetting][])
    .filter(([name, row]) => name.endsWith('_PORT') && !row.internal && row.retired === undefined)
    .filter(([, row]) =>
      (['start', 'engine', 'facade', 'worker'] as ProcessName[]).some((reader) => row.processes.includes(reader)),
    )
    .map(([name]) => name);
  t.true(ports.length >= 10, ports.join(', '));
  for (const name of ports) t.regex(help, new RegExp(`^ {2}${name} +\\S`, 'm'), name);
});
