// Which test files make up the quick lane (`npm run test:quick`), the inner
// loop: the files that start nothing — no PostgreSQL, no Temporal, no
// browser, no flowhook process — and run no check of the whole project, so
// the lane needs neither the run's PostgreSQL nor its Temporal dev server and
// run-tests.ts starts neither. That is the unit and facade tests (but the two
// that run ESLint and the TypeScript checker over the project, lint-rules and
// temporal-contract), and a file of another folder that starts nothing
// (test/embedded/data-dir-permissions). Left to `npm test` (which runs every
// file, as CI does): the tests on the in-process stack (test/support/stack.ts,
// a test database on the run's PostgreSQL), those that start flowhook's own
// processes through bin/flowhook (one per component, two nodes, the `start`
// command, a lone facade), drive a browser, build the console's pages, start
// an embedded PostgreSQL or Temporal of their own, or check the whole project.
// A file is classed by what it uses — what it calls or names, and what the
// test/ modules it imports call or name — so a new test lands in the right
// lane without a list to keep.
import { existsSync, globSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** What a test file may use that the quick lane leaves out, each as its source (or a test/ module it imports) shows it. */
const USES = {
  /** The run's PostgreSQL and Temporal (test/support/stack.ts): the in-process stack, a test database, the Temporal CLI on it. */
  'postgres+temporal': /\b(?:startStack|createTestDatabase|testInfrastructure)\(/,
  /** flowhook's own processes, through bin/flowhook. */
  processes: /\/bin\/flowhook['"]/,
  /** An embedded PostgreSQL or Temporal of its own, or the Temporal CLI or server installed (bin/embedded). */
  embedded:
    /\b(?:startEmbeddedPostgres|startTemporalDevServer|startTemporalServer|resolveTemporalCli|resolveTemporalServer|installFromPyPI)\(/,
  /** A browser: Chromium through playwright-core. */
  browser: /\bchromium\.launch\(|\bfindChromium\(/,
  /** A Vite build of the console's pages (when they are stale). */
  'console build': /\b(?:ensureConsoleBuilt|buildConsole)\(/,
  /**
   * A check of the whole project — ESLint with eslint.config.js, the TypeScript checker over
   * tsconfig.json — ~10 s of CPU each: with `npm run lint` and `npm run typecheck`, not the inner loop.
   */
  'project check': /\bnew ESLint\(|\bgetParsedCommandLineOfConfigFile\(/,
} as const;
export type TestUse = keyof typeof USES;

/**
 * Not followed when imported: it defines the run's infrastructure (its functions are the uses
 * above), and a file that imports only its constants or types uses nothing.
 */
const DEFINES_INFRASTRUCTURE = 'test/support/stack.ts';
/** Relative imports that load code (not `import type`), static or dynamic. */
const RELATIVE_IMPORT =
  /^\s*(?:import|export)(?!\s+type\b)[^'"]*?\sfrom\s+'(\.{1,2}\/[^']+\.ts)'|\bimport\(\s*'(\.{1,2}\/[^']+\.ts)'\s*\)/gm;

/** Every test file, relative to the repository root, sorted: what `npm test` runs. */
export function allTestFiles(root: string): string[] {
  return globSync('test/**/*.test.ts', { cwd: root }).sort();
}

/** What a test file (a path relative to root) uses: its own source and the test/ modules it imports, transitively. */
export function testUses(root: string, file: string, seen = new Set<string>()): Set<TestUse> {
  const uses = new Set<TestUse>();
  if (seen.has(file)) return uses;
  seen.add(file);
  const source = readFileSync(join(root, file), 'utf8');
  for (const [use, pattern] of Object.entries(USES) as [TestUse, RegExp][]) if (pattern.test(source)) uses.add(use);
  for (const match of source.matchAll(RELATIVE_IMPORT)) {
    const imported = relative(root, join(root, dirname(file), match[1] ?? match[2]!));
    if (!imported.startsWith('test/') || imported === DEFINES_INFRASTRUCTURE || !existsSync(join(root, imported)))
      continue;
    for (const use of testUses(root, imported, seen)) uses.add(use);
  }
  return uses;
}

/** The quick lane's test files, relative to the repository root, sorted: those that use none of the above. */
export function quickLaneFiles(root: string): string[] {
  return allTestFiles(root).filter((file) => testUses(root, file).size === 0);
}

/**
 * Whether ava's file arguments (files, directories or globs, a file perhaps with `:line`) need the
 * run's PostgreSQL and Temporal; also when an argument matches no test file, since that cannot be told.
 */
export function needRunInfrastructure(root: string, patterns: string[]): boolean {
  return patterns.some((pattern) => {
    const path = pattern.replace(/:\d[\d,-]*$/, '');
    const files =
      path.endsWith('.test.ts') && !/[*?[{]/.test(path)
        ? [path]
        : globSync(path.endsWith('.ts') ? path : `${path.replace(/\/$/, '')}/**/*.test.ts`, { cwd: root });
    return (
      files.length === 0 ||
      files.some(
        (file) =>
          !existsSync(resolve(root, file)) ||
          testUses(root, relative(root, resolve(root, file))).has('postgres+temporal'),
      )
    );
  });
}
