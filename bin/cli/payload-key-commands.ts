// `flowhook payload-key rotate`: a new current key for doNotLogPayload
// payloads, written first into the payload key file; the previous keys stay in
// it, retired, so every history written under them stays readable. Local
// only (the engine never holds the file's path for writing): engines and
// workers read the file at start, so they are restarted afterwards — until
// then they keep encrypting with the old key, which the new ring still reads.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Code } from '@connectrpc/connect';
import type { Command } from 'commander';
import { LOCAL_PAYLOAD_KEY_FILE } from '../start/local-tokens.ts';
import { PAYLOAD_KEY_FILE_VARIABLE, rotatePayloadKeyFile } from '../../workflows/codec/payload-keyring.ts';
import { CliError, exitCodeFor, reportError, setProcessExitCode } from './admin-action.ts';
import { readPayloadKeyCommandConfig, type PayloadKeyCommandConfig } from './cli-config.ts';
import { printJson, printLines, processIo, type CliIo } from './output.ts';

export interface PayloadKeyCommandDeps {
  io?: CliIo;
  /** Where FLOWHOOK_PAYLOAD_KEY_FILE and the data directory are read (cli-config.ts). Default: the process's environment. */
  env?: Record<string, string | undefined>;
  setExitCode?: (code: number) => void;
}

export function registerPayloadKeyCommands(program: Command, deps: PayloadKeyCommandDeps = {}): void {
  const io = deps.io ?? processIo;
  const config = (): PayloadKeyCommandConfig => readPayloadKeyCommandConfig(deps.env);
  const setExitCode = deps.setExitCode ?? setProcessExitCode;
  program
    .command('payload-key')
    .description("the keys that encrypt doNotLogPayload executions' payloads in Temporal")
    .command('rotate')
    .description(
      'put a new current key first in the payload key file; older keys stay there to decrypt old histories (restart engines and workers afterwards)',
    )
    .option(
      '--file <path>',
      `the key file (default: ${PAYLOAD_KEY_FILE_VARIABLE}, else <data dir>/${LOCAL_PAYLOAD_KEY_FILE} of \`flowhook start\`)`,
    )
    .option('--json', 'print the result as JSON')
    .action((options: { file?: string; json?: boolean }) => {
      try {
        const path = keyFile(options.file, config());
        const rotation = rotatePayloadKeyFile(path);
        if (options.json) return printJson(io, { file: path, ...rotation });
        printLines(io, [
          `New current payload key ${rotation.currentKeyId} in ${path}; retired (still decrypting): ${rotation.retiredKeyIds.join(', ')}.`,
          'Restart every engine and worker that reads this file (copy it to those on other machines first): until then they encrypt with the previous key, which stays readable.',
        ]);
      } catch (error) {
        reportError(io, options.json === true, error);
        setExitCode(exitCodeFor(error));
      }
    });
}

function keyFile(option: string | undefined, config: PayloadKeyCommandConfig): string {
  if (option) return option;
  if (config.keyFile) return config.keyFile;
  const local = join(config.dataDir, LOCAL_PAYLOAD_KEY_FILE);
  if (existsSync(local)) return local;
  throw new CliError(
    `no payload key file: name it with --file or ${PAYLOAD_KEY_FILE_VARIABLE} (\`flowhook start\` keeps one at ${local}). ` +
      'Keys given in FLOWHOOK_PAYLOAD_KEY are rotated by putting a new key first in it (comma-separated, newest first) and restarting',
    Code.FailedPrecondition,
  );
}
