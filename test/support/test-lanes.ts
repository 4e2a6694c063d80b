// Which test files make up the quick lane (`npm run test:quick`), the inner
// loop: the unit tests, the facade tests and the end-to-end tests that run
// the whole stack inside the test process (test/support/stack.ts). Left to
// `npm test` (which runs every file, as CI does): the tests that start
// flowhook's own processes through bin/flowhook (one per component, two
// nodes, the `start` command), drive a browser, or start the embedded
// PostgreSQL and Temporal themselves (test/embedded). A file is classed by
// what it uses, so a new test lands in the right lane without a list to keep.
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a test file imports or names when it starts processes of its own or a browser. */
const STARTS_PROCESSES = [/bin\/flowhook['"]/, /support\/(process-stack|multi-node-stack|flowhook-start|lone-facade)\.ts['"]/, /from 'playwright-core'/];

/** The quick lane's test files, relative to the repository root, sorted. */
export function quickLaneFiles(root: string): string[] {
  const inProcess = (file: string) => !STARTS_PROCESSES.some((pattern) => pattern.test(readFileSync(join(root, file), 'utf8')));
  return [
    ...globSync('test/unit/**/*.test.ts', { cwd: root }),
    ...globSync('test/facade/**/*.test.ts', { cwd: root }),
    ...globSync('test/e2e/**/*.test.ts', { cwd: root }).filter(inProcess),
  ].sort();
}
