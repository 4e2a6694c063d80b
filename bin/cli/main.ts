// The CLI's entry: the process's arguments through the one commander program (cli-program.ts).
import { runCli } from './cli-program.ts';

process.exitCode = await runCli(process.argv.slice(2));
