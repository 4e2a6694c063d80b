// The CLI's entry: process commands and admin commands on one commander program.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerAdminCommands } from './admin-commands.ts';
import { registerAuditCommands } from './audit-commands.ts';
import { addEnvironmentHelp } from './environment-help.ts';
import { registerExecutionCommands } from './execution-commands.ts';
import { registerPayloadKeyCommands } from './payload-key-commands.ts';
import { registerProcessCommands } from './process-commands.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('flowhook')
  .description('Webhook trigger service for durable flows')
  .version(version, '-V, --version', 'print the flowhook version')
  .showHelpAfterError()
  .enablePositionalOptions();
registerProcessCommands(program);
registerAdminCommands(program);
registerExecutionCommands(program);
registerAuditCommands(program);
registerPayloadKeyCommands(program);
addEnvironmentHelp(program);
await program.parseAsync(process.argv);
