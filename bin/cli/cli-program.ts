// The whole `flowhook` command line: every command on one commander program,
// the old spellings respelled (deprecated-spellings.ts), and the exit code:
//
//   0  the command did what it says
//   1  it failed: the engine refused or is unreachable, a file is wrong, …
//   2  usage error: unknown command or option, missing or excess argument,
//      invalid option value (commander's errors), or options the command's own
//      checks refuse (UsageError) — nothing was sent
//
// main.ts runs it on the process's arguments; tests run it with their own
// clients and streams, so they see exactly what an operator sees.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerAdminCommands, type AdminCommandDeps } from './admin-commands.ts';
import { registerAlertCommands, type AlertCommandDeps } from './alert-commands.ts';
import { registerAuditCommands, type AuditCommandDeps } from './audit-commands.ts';
import { registerDeliveryCommands, type DeliveryCommandDeps } from './delivery-commands.ts';
import { registerConsoleSessionCommands, type ConsoleSessionCommandDeps } from './console-session-commands.ts';
import { respellDeprecated } from './deprecated-spellings.ts';
import { addEnvironmentHelp } from './environment-help.ts';
import { registerExecutionCommands, type ExecutionCommandDeps } from './execution-commands.ts';
import { processIo, type CliIo } from './output.ts';
import { registerPayloadKeyCommands, type PayloadKeyCommandDeps } from './payload-key-commands.ts';
import { registerProcessCommands } from './process-commands.ts';
import { registerRetentionCommands, type RetentionCommandDeps } from './retention-commands.ts';

export const USAGE_EXIT_CODE = 2;

type Wiring = 'io' | 'setExitCode';

export interface CliDeps {
  /** Default: the process's stdout and stderr (commander's own help and errors too). */
  io?: CliIo;
  admin?: Omit<AdminCommandDeps, Wiring>;
  execution?: Omit<ExecutionCommandDeps, Wiring>;
  audit?: Omit<AuditCommandDeps, Wiring>;
  deliveries?: Omit<DeliveryCommandDeps, Wiring>;
  consoleSessions?: Omit<ConsoleSessionCommandDeps, Wiring>;
  payloadKey?: Omit<PayloadKeyCommandDeps, Wiring>;
  retention?: Omit<RetentionCommandDeps, Wiring>;
  alerts?: Omit<AlertCommandDeps, Wiring>;
}

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** Runs one command line (the arguments after `flowhook`) and returns its exit code. */
export async function runCli(args: readonly string[], deps: CliDeps = {}): Promise<number> {
  const io = deps.io ?? processIo;
  const respelled = respellDeprecated(args);
  if (respelled) io.err(`${respelled.note}\n`);
  let exitCode = 0;
  const program = createProgram(deps, io, (code) => void (exitCode = code));
  try {
    await program.parseAsync(respelled?.args ?? [...args], { from: 'user' });
  } catch (error) {
    // exitOverride: commander has printed the error (or the help, or the version) and throws instead of exiting.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
    io.err(`flowhook: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return exitCode;
}

/** The command tree as `runCli` parses with it, for reading it (the CLI reference walks it); runs nothing. */
export function cliCommandTree(deps: CliDeps = {}): Command {
  return createProgram(deps, deps.io ?? processIo, () => undefined);
}

function createProgram(deps: CliDeps, io: CliIo, setExitCode: (code: number) => void): Command {
  // Set before the commands are added: every subcommand inherits them.
  const program = new Command('flowhook')
    .description('Webhook trigger service for durable flows')
    .version(version, '-V, --version', 'print the flowhook version')
    .showHelpAfterError()
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  const wiring = { io, setExitCode };
  registerProcessCommands(program);
  registerAdminCommands(program, { ...deps.admin, ...wiring });
  registerExecutionCommands(program, { ...deps.execution, ...wiring });
  registerAuditCommands(program, { ...deps.audit, ...wiring });
  registerDeliveryCommands(program, { ...deps.deliveries, ...wiring });
  registerConsoleSessionCommands(program, { ...deps.consoleSessions, ...wiring });
  registerPayloadKeyCommands(program, { ...deps.payloadKey, ...wiring });
  registerRetentionCommands(program, { ...deps.retention, ...wiring });
  registerAlertCommands(program, { ...deps.alerts, ...wiring });
  addEnvironmentHelp(program);
  return program;
}
