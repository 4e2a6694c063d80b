// The CLI's entry: process commands and admin commands on one commander program.
import { Command } from 'commander';
import { registerAdminCommands } from './admin-commands.ts';
import { registerExecutionCommands } from './execution-commands.ts';
import { registerProcessCommands } from './process-commands.ts';

const program = new Command('flowhook')
  .description('Webhook trigger service for durable flows')
  .showHelpAfterError()
  .enablePositionalOptions();
registerProcessCommands(program);
registerAdminCommands(program);
registerExecutionCommands(program);
await program.parseAsync(process.argv);
