// Runs one admin command: connects lazily (so `--help` and usage errors need no
// engine and no token), and turns every failure into the CLI's error contract:
//
//   - the message goes to stderr as `flowhook: <code in words>: <message>`,
//   - the exit code is 2 for a UsageError (the command line itself is wrong,
//     found before anything was sent), 1 for everything else,
//   - with --json, stdout additionally gets exactly one object
//     `{"error": {"code": "not_found", "message": "..."}}` (Connect's code
//     names), so a script reading stdout always gets one JSON document.
//
// Usage errors commander finds (unknown command or option, missing argument,
// invalid option value) never reach this: cli-program.ts maps them to exit 2.
import { Code, ConnectError } from '@connectrpc/connect';
import { codeToString } from '@connectrpc/connect/protocol-connect';
import type { Command } from 'commander';
import type { AdminClient } from './admin-client.ts';
import { FlowFileError } from './flow-file.ts';
import { printJson, processIo, type CliIo } from './output.ts';

export interface CommandContext<C> {
  /** Created on first use; throws when no admin token is configured. */
  client(): C;
  io: CliIo;
  /** --json was given. */
  json: boolean;
  /** The command's own options (commander's opts()). */
  options: Record<string, unknown>;
  /** Marks the command as failed without throwing (e.g. one of several files failed). */
  fail(): void;
}

/** What a command group runs with: its client (made on first use), its streams, and how it sets the exit code. */
export interface CommandRuntime<C> {
  client: () => C;
  io: CliIo;
  setExitCode: (code: number) => void;
}

export type AdminContext = CommandContext<AdminClient>;
export type AdminRuntime = CommandRuntime<AdminClient>;

/** A command group's optional wiring (tests pass their own); see commandRuntime. */
export interface CommandWiring<C> {
  /** Default: built from the environment on the first call. */
  client?: () => C;
  /** Default: the process's stdout and stderr. */
  io?: CliIo;
  /** Default: sets process.exitCode, so pending output is flushed before exit. */
  setExitCode?: (code: number) => void;
}

/** The runtime of a command group: what `deps` gives, the process's own for the rest. */
export function commandRuntime<C>(deps: CommandWiring<C>, fromEnvironment: () => C): CommandRuntime<C> {
  return {
    client: deps.client ?? fromEnvironment,
    io: deps.io ?? processIo,
    setExitCode: deps.setExitCode ?? setProcessExitCode,
  };
}

/** Sets process.exitCode, so pending output is flushed before the process exits. */
export function setProcessExitCode(code: number): void {
  process.exitCode = code;
}

export interface CliErrorInfo {
  /** Connect code name, e.g. "not_found", "unavailable". */
  code: string;
  message: string;
}

export function adminAction<A extends unknown[], C>(
  runtime: CommandRuntime<C>,
  handler: (context: CommandContext<C>, ...positional: A) => Promise<void>,
) {
  // commander calls actions with (…positional, options, command).
  return async (...args: unknown[]): Promise<void> => {
    const command = args[args.length - 1] as Command;
    const options = command.opts<Record<string, unknown>>();
    const json = options.json === true;
    let client: C | undefined;
    const context: CommandContext<C> = {
      client: () => (client ??= runtime.client()),
      io: runtime.io,
      json,
      options,
      fail: () => runtime.setExitCode(1),
    };
    try {
      await handler(context, ...(args.slice(0, -2) as A));
    } catch (error) {
      reportError(runtime.io, json, error);
      runtime.setExitCode(exitCodeFor(error));
    }
  };
}

/** 2 when the command line itself is wrong (a UsageError), 1 for every other failure. */
export function exitCodeFor(error: unknown): 1 | 2 {
  return error instanceof UsageError ? 2 : 1;
}

/** `about` names what failed when a command does several things (e.g. one of several files). */
export function reportError(io: CliIo, json: boolean, error: unknown, about?: string): void {
  const info = describeError(error);
  io.err(`flowhook: ${about ? `${about}: ` : ''}${humanMessage(error, info)}\n`);
  if (json) printJson(io, { error: info });
}

export function describeError(error: unknown): CliErrorInfo {
  if (error instanceof ConnectError) return { code: codeToString(error.code), message: error.rawMessage };
  if (error instanceof FlowFileError) return { code: codeToString(Code.InvalidArgument), message: error.message };
  if (error instanceof Error)
    return {
      code: codeToString((error as { connectCode?: Code }).connectCode ?? Code.Unknown),
      message: error.message,
    };
  return { code: codeToString(Code.Unknown), message: String(error) };
}

function humanMessage(error: unknown, info: CliErrorInfo): string {
  if (!(error instanceof ConnectError)) return info.message;
  const words = info.code.replace(/_/g, ' ');
  // The engine says only "a valid bearer token is required"; say where the CLI's token comes from.
  const hint =
    error.code === Code.Unauthenticated
      ? ' (the admin token comes from FLOWHOOK_ADMIN_TOKEN or <FLOWHOOK_DATA_DIR>/admin-token)'
      : '';
  return `${words}: ${info.message}${hint}`;
}

/** An error the CLI raises itself, carrying the code its JSON form reports. */
export class CliError extends Error {
  readonly connectCode: Code;

  constructor(message: string, code: Code) {
    super(message);
    this.name = 'CliError';
    this.connectCode = code;
  }
}

/**
 * A command line that cannot work, found by the CLI's own checks before anything is sent
 * (options that exclude each other, a setting the chosen kind needs): exit code 2, like
 * commander's usage errors.
 */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, Code.InvalidArgument);
    this.name = 'UsageError';
  }
}
