// The handbook runs as written. Every shell block of README.md, the tutorials
// and the how-to guides runs, in page order, against `flowhook start` on a
// fresh data directory (company Default, the example flow, the first-run
// files) on the default ports, as a newcomer runs them after `npm start`
// and `npm link`. A page's blocks share one shell, so a variable a block
// defines holds for the blocks after it; every curl fails on an HTTP error
// (--fail-with-body), so a refused call fails the page. A block that cannot
// run here says why in the line before it (test/support/doc-blocks.ts).
import test from 'ava';
import { spawn } from 'node:child_process';
import { chmodSync, globSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docPage, type DocPage } from '../support/doc-blocks.ts';
import { FLOWHOOK, startFlowhook, stopFlowhook } from '../support/flowhook-start.ts';
import { createTestDatabase, testInfrastructure } from '../support/stack.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PAGES = [
  'README.md',
  ...globSync('docs/tutorials/*.md', { cwd: ROOT }).sort(),
  ...globSync('docs/how-to/*.md', { cwd: ROOT }).sort(),
].map((file) => docPage(file, readFileSync(join(ROOT, file), 'utf8')));
const PAGE_TIMEOUT_MS = 150_000;

test('every shell block of the handbook either runs or says why it cannot', (t) => {
  const blocks = PAGES.flatMap((page) => page.blocks);
  t.true(blocks.length >= 40, `${blocks.length} blocks`);
  const runnable = blocks.filter((block) => block.skip === undefined);
  t.true(runnable.length >= blocks.length / 2, `${runnable.length} of ${blocks.length} run`);
});

for (const page of PAGES.filter((candidate) => candidate.blocks.some((block) => block.skip === undefined))) {
  test.serial(`${page.file} runs as written`, async (t) => {
    t.timeout(PAGE_TIMEOUT_MS + 120_000);
    const result = await runPage(page);
    t.is(result.code, 0, `${page.file}: the block at line ${result.lastBlock} failed:\n${result.output.slice(-4000)}`);
  });
}

/** A checkout as a newcomer has it (the examples, node_modules for `npx`), with its own fresh .flowhook, and `flowhook` on PATH. */
function scratchCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowhook-docs-'));
  for (const name of ['examples', 'node_modules', 'package.json', 'flow.schema.json'])
    symlinkSync(join(ROOT, name), join(dir, name));
  mkdirSync(join(dir, '.bin'));
  writeFileSync(join(dir, '.bin', 'flowhook'), `#!/bin/sh\nexec '${process.execPath}' '${FLOWHOOK}' "$@"\n`);
  chmodSync(join(dir, '.bin', 'flowhook'), 0o755);
  return dir;
}

async function runPage(page: DocPage): Promise<{ code: number | null; output: string; lastBlock: number }> {
  const dir = scratchCheckout();
  // As a new user's shell: nothing of the test run's FLOWHOOK_*/TEMPORAL_*.
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('FLOWHOOK_') && !name.startsWith('TEMPORAL_')),
  );
  env.PATH = `${join(dir, '.bin')}:${join(ROOT, 'node_modules', '.bin')}:${env.PATH ?? ''}`;
  const started = await startFlowhookIn(dir, { ...env, ...page.startEnv });
  try {
    return await runBlocks(page, dir, env);
  } finally {
    await stopFlowhook(started);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npm start` in the checkout: the default ports, data in ./.flowhook; the run's PostgreSQL (a fresh database) and Temporal CLI. */
async function startFlowhookIn(
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<Awaited<ReturnType<typeof startFlowhook>>> {
  return startFlowhook(
    { ...env, FLOWHOOK_DATABASE_URL: await createTestDatabase(), TEMPORAL_CLI: testInfrastructure().temporalCli },
    false,
    dir,
  );
}

function runBlocks(
  page: DocPage,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string; lastBlock: number }> {
  const script = [
    'set -euo pipefail',
    // A refused call fails the page; the docs show what a successful one prints.
    'curl() { command curl --fail-with-body "$@"; }',
    'BACKGROUND=()',
    'trap \'for pid in "${BACKGROUND[@]}"; do kill "$pid" 2>/dev/null || true; done\' EXIT',
    ...page.blocks
      .filter((block) => block.skip === undefined)
      .flatMap((block) => [
        `echo "::block ${block.line}" >&2`,
        block.background ? backgrounded(block.text, block.line) : block.text,
      ]),
  ].join('\n');
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), PAGE_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const markers = [...output.matchAll(/^::block (\d+)$/gm)];
      resolve({ code, output, lastBlock: Number(markers.at(-1)?.[1] ?? 0) });
    });
  });
}

/** A server the page runs next to flowhook: started, and waited for until it prints its first line. */
function backgrounded(text: string, line: number): string {
  const log = `"$PWD/.background-${line}.log"`;
  return [
    `(\n${text}\n) > ${log} 2>&1 &`,
    'BACKGROUND+=($!)',
    `for _ in $(seq 100); do [ -s ${log} ] && break; sleep 0.1; done`,
    `cat ${log}`,
  ].join('\n');
}
