// `flowhook temporal …`: the Temporal CLI that `flowhook start` runs its dev
// server with, for the commands the docs use (`temporal workflow list`, …)
// without installing it a second time or looking for it in .flowhook/bin.
// Every argument goes to it unchanged, `--help` included; its exit code is
// ours. It finds the CLI as start does (TEMPORAL_CLI, PATH, <data dir>/bin,
// installed on first use) and talks to the dev server start runs on
// 127.0.0.1:7233 unless TEMPORAL_ADDRESS (or its own --address) says otherwise.
import { spawn } from 'node:child_process';
import type { Command } from 'commander';

export function registerTemporalCommand(program: Command): void {
  // Options after `temporal` are the Temporal CLI's, never flowhook's (passThroughOptions needs this).
  program.enablePositionalOptions();
  program
    .command('temporal')
    .description(
      "run the Temporal CLI start uses (`flowhook temporal workflow list`); every argument is the Temporal CLI's",
    )
    .argument('[args...]', "the Temporal CLI's command and options")
    .helpOption(false)
    .allowUnknownOption()
    .passThroughOptions()
    .action(async (args: string[]) => {
      const [{ resolveTemporalCli }, { readStartConfig }] = await Promise.all([
        import('../embedded/temporal-cli.ts'),
        import('../start/start-config.ts'),
      ]);
      const config = readStartConfig();
      const cli = await resolveTemporalCli({
        dataDir: config.dataDir,
        configuredPath: config.temporalCli,
        log: (message) => process.stderr.write(`flowhook: ${message}\n`),
      });
      const env = { ...config.env, TEMPORAL_ADDRESS: config.temporalAddress ?? `127.0.0.1:${config.temporalPort}` };
      const code = await new Promise<number>((resolve, reject) => {
        const child = spawn(cli, args, { stdio: 'inherit', env });
        child.on('error', reject);
        child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
      });
      // Its exit code is ours: a script checks `flowhook temporal …` as it would check `temporal …`.
      process.exit(code);
    });
}
