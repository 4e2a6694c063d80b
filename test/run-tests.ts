// `npm test`: checks that the generated code is current and the proto lint
// clean, type-checks, lints (eslint.config.js) and checks the formatting
// (Prettier), runs the console's component tests (`npm run test:components`,
// when package.json has that script), starts one PostgreSQL and one Temporal
// dev server for the run, runs every test file with ava against them, and
// stops them again. `npm run test:quick` (`--quick`) is the inner loop: no
// checks (`npm run typecheck`, `npm run lint` and `npm run format:check` do
// that part alone), the component tests, and only the quick lane's files —
// those that start nothing (test/support/test-lanes.ts) — with no PostgreSQL
// or Temporal started. Files named (`npm run test:quick -- <files>`) run as
// named, without the component tests, and PostgreSQL and Temporal are started
// when one of them needs them. With FLOWHOOK_TEMPORAL=server the run uses the
// official Temporal server on that PostgreSQL instead (built once from the Go
// module proxy; see docs/how-to/deploy.md, A Temporal cluster).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEARCH_ATTRIBUTES } from '../engine/infrastructure/temporal/search-attributes.ts';
import { startEmbeddedPostgres } from '../bin/embedded/embedded-postgres.ts';
import { findFreePort } from '../bin/embedded/free-port.ts';
import { resolveTemporalCli } from '../bin/embedded/temporal-cli.ts';
import { startTemporalDevServer } from '../bin/embedded/temporal-dev-server.ts';
import { startTemporalServer } from '../bin/embedded/temporal-server.ts';
import { resolveTemporalServer } from '../bin/embedded/temporal-server-install.ts';
import { needRunInfrastructure, quickLaneFiles } from './support/test-lanes.ts';

// Flows with `sleep` steps run in real time here, on the dev server. Temporal's time-skipping
// environment (@temporalio/testing, TestWorkflowEnvironment.createTimeSkipping) needs Temporal's
// test server, another program than the CLI's dev server: the SDK downloads it from GitHub releases
// (not reachable from this project's machines) unless given one as `existing-path`. The Java build
// (io.temporal:temporal-test-server 1.38.0 from Maven Central, started with `java`) does work that
// way here (a one-hour sleep ends in about two seconds), but it is not used (issue 26): the SDK
// package is not a dependency; that server does not implement ListWorkflowExecutions, which
// `execution list`, `show` and `rerun` use; and it skips time for every execution on it, but only
// while the test's own client awaits a result: it fits only a test that awaits its flow's end
// through that client, with no caller, callback or sync window waiting meanwhile, and would need a
// stack of its own on that server.
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
// Node-based tools run on this process's Node (the pinned Node 24), whatever `node` PATH finds first.
const nodeTool = (script: string): [string, string[]] => [process.execPath, [join(root, 'node_modules', script)]];
const say = (message: string) => process.stderr.write(`test: ${message}\n`);

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function checkSources(): Promise<void> {
  const checks: [string, string, string[]][] = [
    ['proto lint', bin('buf'), ['lint']],
    ['generated code is current', process.execPath, [join(root, 'test', 'support', 'check-generated.ts')]],
    ['type check', process.execPath, [...nodeTool('typescript/bin/tsc')[1], '--noEmit', '-p', root]],
    [
      'console type check',
      process.execPath,
      [...nodeTool('typescript/bin/tsc')[1], '--noEmit', '-p', join(root, 'console')],
    ],
    ['lint', process.execPath, [...nodeTool('eslint/bin/eslint.js')[1], '.']],
    [
      'formatting',
      process.execPath,
      [...nodeTool('prettier/bin/prettier.cjs')[1], '--check', '--log-level', 'warn', '.'],
    ],
  ];
  for (const [name, command, args] of checks) {
    say(`${name}…`);
    if ((await run(command, args)) !== 0) throw new Error(`${name} failed`);
  }
}

async function main(): Promise<number> {
  const quick = process.argv[2] === '--quick';
  const avaArgs = process.argv.slice(quick ? 3 : 2);
  const named = namedFiles(avaArgs);
  // For quick local iterations on one test file; CI always runs the checks.
  if (!quick && process.env.FLOWHOOK_TEST_SKIP_CHECKS !== '1') await checkSources();
  // Named files run as named; otherwise the quick lane's files, or (npm test) every file.
  const files = quick && named.length === 0 ? quickLaneFiles(root) : [];
  // npm test always starts PostgreSQL and Temporal; the quick lane never does, unless a file named needs them.
  const infrastructure = !quick || (named.length > 0 && needRunInfrastructure(root, named));
  if (quick)
    say(
      `quick lane: ${files.length > 0 ? `${files.length} files` : 'the files named'}, no checks${infrastructure ? '' : ', no PostgreSQL or Temporal'}`,
    );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    // Much of the quick lane's time is its ~140 test processes loading their modules: V8's code
    // cache of what they load (ava, the modules under test, webpack in the workflow bundler's
    // child) is kept between runs, in node_modules/.cache (a fifth less CPU; Node's module docs,
    // "Module compile cache"). npm test runs as CI does, without it.
    ...(quick ? { NODE_COMPILE_CACHE: join(root, 'node_modules', '.cache', 'node-compile-cache') } : {}),
  };
  const components = named.length === 0 ? await runComponentTests(env) : 0;
  let work: string | undefined;
  const stops: (() => Promise<unknown>)[] = [];
  try {
    if (infrastructure) {
      work = mkdtempSync(join(tmpdir(), 'flowhook-test-'));
      const realServer = temporalMode() === 'server';
      say(`starting PostgreSQL and ${realServer ? 'the Temporal server (on PostgreSQL)' : 'Temporal'} for the run…`);
      const dataDir = join(root, '.flowhook');
      const cliPath = await resolveTemporalCli({ dataDir, log: say, configuredPath: process.env.TEMPORAL_CLI });
      const postgres = await startEmbeddedPostgres({ dataDir: work, port: await findFreePort(), log: say });
      stops.push(() => postgres.stop());
      const temporal = realServer
        ? await startTemporalServer({
            install: await resolveTemporalServer({ dataDir, log: say, home: process.env.TEMPORAL_SERVER_HOME }),
            cliPath,
            workDir: join(work, 'temporal-server'),
            postgresUrl: postgres.url,
            createDatabase: (name) => postgres.createDatabase(name),
            searchAttributes: SEARCH_ATTRIBUTES,
            log: say,
          })
        : await startTemporalDevServer({
            cliPath,
            inMemory: true,
            headless: true,
            port: await findFreePort(),
            searchAttributes: SEARCH_ATTRIBUTES,
            log: say,
          });
      stops.push(() => temporal.stop());
      Object.assign(env, {
        FLOWHOOK_TEST_POSTGRES_URL: postgres.url,
        FLOWHOOK_TEST_TEMPORAL_ADDRESS: temporal.address,
        FLOWHOOK_TEST_TEMPORAL_CLI: cliPath,
        FLOWHOOK_TEST_TEMPORAL: realServer ? 'server' : 'dev',
      });
    }
    const [node, ava] = nodeTool('ava/entrypoints/cli.js');
    const code = await run(node, [...ava, ...files, ...avaArgs], env);
    if (components !== 0) say('the component tests failed (npm run test:components)');
    return code !== 0 ? code : components;
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => say(`stop failed: ${String(error)}`));
    if (work) rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The console's component tests (Vitest), when package.json has a `test:components` script (none
 * yet is no error): run before ava by `npm test` and the quick lane — not when files are named —
 * and the run fails when they fail, after ava has run. Returns their exit code, 0 without them.
 */
async function runComponentTests(env: NodeJS.ProcessEnv): Promise<number> {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  if (!scripts?.['test:components']) return 0;
  say('component tests (npm run test:components)…');
  // The npm that runs this script (npm_execpath), on this Node; run directly, the npm on PATH.
  const npm = process.env.npm_execpath;
  return npm
    ? run(process.execPath, [npm, 'run', 'test:components'], env)
    : run('npm', ['run', 'test:components'], env);
}

/** The files (or globs, directories) ava's arguments name: anything but a flag and the value of one that takes it. */
function namedFiles(args: string[]): string[] {
  const takesValue = new Set(['--match', '-m', '--timeout', '-T', '--concurrency', '-c', '--node-arguments']);
  const files: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (takesValue.has(arg)) index++;
    else if (!arg.startsWith('-')) files.push(arg);
  }
  return files;
}

/** FLOWHOOK_TEMPORAL: `dev` (default, the CLI's dev server) or `server` (the official server on PostgreSQL). */
function temporalMode(): 'dev' | 'server' {
  const mode = process.env.FLOWHOOK_TEMPORAL ?? 'dev';
  if (mode !== 'dev' && mode !== 'server')
    throw new Error(`FLOWHOOK_TEMPORAL must be dev or server, not ${JSON.stringify(mode)}`);
  return mode;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
