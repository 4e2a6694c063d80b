// Runs `flowhook <admin command>` as an operator types it — the real commander
// program and Connect client — against a test stack's engine, capturing what
// it prints and its exit code.
import { Command } from 'commander';
import { registerAdminCommands } from '../../bin/cli/admin-commands.ts';
import { addEnvironmentHelp } from '../../bin/cli/environment-help.ts';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { registerExecutionCommands } from '../../bin/cli/execution-commands.ts';
import type { Confirm } from '../../bin/cli/execution-rerun-command.ts';
import type { TestStack } from './stack.ts';

export interface CliRun {
  out: string;
  err: string;
  code: number;
}

export function cliAgainst(stack: Pick<TestStack, 'admin'>): (...args: string[]) => Promise<CliRun> {
  return async (...args) => {
    let out = '';
    let err = '';
    let code = 0;
    const io = { out: (text: string) => void (out += text), err: (text: string) => void (err += text) };
    const setExitCode = (value: number) => void (code = value);
    // Set before the commands are added, so every subcommand inherits them.
    const program = new Command('flowhook').exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
    registerAdminCommands(program, { client: stack.admin, io, setExitCode });
    addEnvironmentHelp(program);
    try {
      await program.parseAsync(['node', 'flowhook', ...args]);
    } catch (error) {
      // commander's usage errors (exitOverride): already printed to err.
      code = (error as { exitCode?: number }).exitCode ?? 1;
    }
    return { out, err, code };
  };
}

/** `flowhook execution …` as typed, against the stack's engine with the given admin token. */
export function executionCliAgainst(stack: Pick<TestStack, 'engineUrl'>, adminToken: string, confirm?: Confirm): (...args: string[]) => Promise<CliRun> {
  const client = createClient(ExecutionService, createConnectTransport({
    baseUrl: stack.engineUrl,
    httpVersion: '2',
    interceptors: [(next) => (request) => {
      request.header.set('authorization', `Bearer ${adminToken}`);
      return next(request);
    }],
  }));
  return async (...args) => {
    let out = '';
    let err = '';
    let code = 0;
    const program = new Command('flowhook').exitOverride();
    registerExecutionCommands(program, { client: () => client, confirm, io: { out: (text) => void (out += text), err: (text) => void (err += text) }, setExitCode: (value) => void (code = value) });
    await program.parseAsync(['node', 'flowhook', ...args]).catch(() => (code = code || 1));
    return { out, err, code };
  };
}
