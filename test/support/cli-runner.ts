// Runs `flowhook <command>` as an operator types it — the real commander
// program (runCli: old spellings, exit codes) and Connect client — in this
// process, capturing what it prints and its exit code.
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { runCli, type CliDeps } from '../../bin/cli/cli-program.ts';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import type { Confirm } from '../../bin/cli/execution-rerun-command.ts';
import type { TestStack } from './stack.ts';

export interface CliRun {
  out: string;
  err: string;
  code: number;
}

/** `flowhook …args` with the given clients, stdout and stderr captured. */
export async function runCapturing(args: readonly string[], deps: Omit<CliDeps, 'io'> = {}): Promise<CliRun> {
  let out = '';
  let err = '';
  const io = { out: (text: string) => void (out += text), err: (text: string) => void (err += text) };
  const code = await runCli(args, { ...deps, io });
  return { out, err, code };
}

/** The admin commands against a test stack's engine. */
export function cliAgainst(stack: Pick<TestStack, 'admin'>): (...args: string[]) => Promise<CliRun> {
  return (...args) => runCapturing(args, { admin: { client: stack.admin } });
}

/** `flowhook execution …` as typed, against the stack's engine with the given admin token. */
export function executionCliAgainst(
  stack: Pick<TestStack, 'engineUrl'>,
  adminToken: string,
  confirm?: Confirm,
): (...args: string[]) => Promise<CliRun> {
  const client = createClient(
    ExecutionService,
    createConnectTransport({
      baseUrl: stack.engineUrl,
      httpVersion: '2',
      interceptors: [
        (next) => (request) => {
          request.header.set('authorization', `Bearer ${adminToken}`);
          return next(request);
        },
      ],
    }),
  );
  return (...args) => runCapturing(args, { execution: { client: () => client, confirm } });
}
