// `--help` lists the variables each command reads. These lists are written by
// hand (with a meaning each); this test keeps them complete by scanning the
// configuration readers for every variable name they mention.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import {
  ADMIN_ENVIRONMENT,
  addEnvironmentHelp,
  ENGINE_ENVIRONMENT,
  FACADE_ENVIRONMENT,
  START_ENVIRONMENT,
  WORKER_ENVIRONMENT,
  type EnvironmentVariable,
} from '../../bin/cli/environment-help.ts';
import { registerAdminCommands } from '../../bin/cli/admin-commands.ts';
import { registerProcessCommands } from '../../bin/cli/process-commands.ts';

function variablesIn(...files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    for (const [name] of text.matchAll(/\b(?:FLOWHOOK|TEMPORAL)_[A-Z0-9_]*[A-Z0-9]\b/g)) names.add(name);
  }
  return names;
}

const READERS: [string, readonly EnvironmentVariable[], string[]][] = [
  ['engine', ENGINE_ENVIRONMENT, ['engine/config.ts', 'engine/codec/codec-config.ts', 'workflows/shared/temporal-settings.ts']],
  ['facade', FACADE_ENVIRONMENT, ['facade/config.ts', 'facade/oauth/oauth-settings.ts']],
  ['worker', WORKER_ENVIRONMENT, ['workflows/config.ts', 'workflows/shared/temporal-settings.ts']],
  ['start', START_ENVIRONMENT, ['bin/start/start-config.ts', 'bin/start/all-in-one.ts', 'bin/start/local-tokens.ts', 'bin/start/local-codec.ts']],
  ['admin commands', ADMIN_ENVIRONMENT, ['bin/cli/cli-config.ts']],
];

for (const [command, listed, files] of READERS) {
  test(`the help of ${command} names every variable its configuration reads`, (t) => {
    const names = new Set(listed.map((variable) => variable.name));
    const missing = [...variablesIn(...files)].filter((name) => !names.has(name));
    t.deepEqual(missing, [], `add these to bin/cli/environment-help.ts: ${missing.join(', ')}`);
  });
}

test('every command help ends with its environment; process commands show their own list', (t) => {
  const program = new Command('flowhook');
  registerProcessCommands(program);
  registerAdminCommands(program, { client: () => { throw new Error('no engine in this test'); } });
  addEnvironmentHelp(program);
  const helpOf = (...path: string[]) => {
    let command = program;
    for (const name of path) command = command.commands.find((child) => child.name() === name)!;
    let text = '';
    command.configureOutput({ writeOut: (chunk) => void (text += chunk) });
    command.outputHelp();
    return text;
  };
  t.regex(helpOf('worker'), /Environment:\n[\s\S]*FLOWHOOK_EGRESS_ALLOW/);
  t.regex(helpOf('start'), /FLOWHOOK_FACADE_HOST\s+default 127\.0\.0\.1/);
  t.regex(helpOf('user', 'create'), /Environment:\n\s+FLOWHOOK_ENGINE_URL[\s\S]*FLOWHOOK_ADMIN_TOKEN/);
  t.notRegex(helpOf('user', 'create'), /FLOWHOOK_EGRESS_ALLOW/);
});
