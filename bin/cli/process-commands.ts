// `flowhook start | engine | facade | worker`: the long-running commands.
// Each runs until SIGINT/SIGTERM, then stops its parts in order and exits 0;
// a second signal exits at once.
//
// Each command imports its component when it runs, not when the CLI starts:
// a facade then never loads the ORM, the Temporal SDK or the worker's code,
// and an engine never loads the worker's (measured: the facade's resident
// memory at idle fell from ~165 to ~95 MiB). Admin commands stay light either way.
import type { Command } from 'commander';
import { createAdminClient } from './admin-client.ts';
import { readFlowFile } from './flow-file.ts';
import { registerTemporalCommand } from './temporal-command.ts';

export function registerProcessCommands(program: Command): void {
  program
    .command('start')
    .description('run everything on embedded defaults: PostgreSQL, Temporal dev server, engine, worker, facade')
    .option(
      '--json',
      'print the banner as one JSON line (URLs, data directory; first-run credentials only to a terminal, else the path of their 0600 file)',
    )
    .action((options: { json?: boolean }) =>
      runUntilSignal(async () => {
        const [{ startAllInOne }, { readStartConfig }, { seedIfEmpty }] = await Promise.all([
          import('../start/all-in-one.ts'),
          import('../start/start-config.ts'),
          import('../start/seed.ts'),
        ]);
        const stack = await startAllInOne(readStartConfig(), {
          json: options.json === true,
          seed: (engineUrl, adminToken) => seedIfEmpty(createAdminClient({ engineUrl, adminToken }), readFlowFile),
        });
        // A part that stops on its own stops everything: a stack that accepts calls nothing runs must not look alive.
        stack.failed.catch((error: unknown) => {
          process.stderr.write(
            `flowhook: ${error instanceof Error ? error.message : String(error)}; stopping everything\n`,
          );
          void stack.stop().finally(() => process.exit(1));
        });
        return stack.stop;
      }),
    );
  program
    .command('engine')
    .description('run the engine (Connect/gRPC on FLOWHOOK_ENGINE_PORT)')
    .option('--json', 'logs are JSON lines already')
    .action(() => runUntilSignal(async () => (await (await import('../../engine/main.ts')).runEngine()).close));
  program
    .command('facade')
    .description('run the HTTP facade (OData endpoint on FLOWHOOK_FACADE_PORT)')
    .option('--json', 'logs are JSON lines already')
    .action(() =>
      runUntilSignal(
        async () => (await (await import('../../facade/main.ts')).runFacade(undefined, { handleSignals: false })).close,
      ),
    );
  program
    .command('worker')
    .description('run a worker polling the flow task queue')
    .option('--json', 'logs are JSON lines already')
    .action(() =>
      runUntilSignal(async () => {
        const { runWorker } = await import('../../workflows/main.ts');
        const worker = await runWorker();
        worker.done.catch((error: unknown) => {
          process.stderr.write(`flowhook: worker stopped: ${error instanceof Error ? error.message : String(error)}\n`);
          process.exit(1);
        });
        return worker.close;
      }),
    );
  registerTemporalCommand(program);
}

async function runUntilSignal(start: () => Promise<() => Promise<unknown>>): Promise<void> {
  let stop: () => Promise<unknown>;
  try {
    stop = await start();
  } catch (error) {
    process.stderr.write(`flowhook: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) {
      process.stderr.write(`flowhook: ${signal} again, exiting now\n`);
      process.exit(130);
    }
    stopping = true;
    process.stderr.write(`flowhook: ${signal} received, stopping…\n`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`flowhook: stop failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
}
