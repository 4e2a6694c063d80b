// The quick lane (npm run test:quick): unit, facade and in-process end-to-end
// tests; the files that start flowhook's processes or a browser stay with npm test.
import test from 'ava';
import { globSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { quickLaneFiles } from '../support/test-lanes.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const quick = new Set(quickLaneFiles(root));

test('every unit and facade test is in the quick lane, no embedded one', (t) => {
  for (const file of globSync('test/{unit,facade}/**/*.test.ts', { cwd: root })) t.true(quick.has(file), file);
  for (const file of globSync('test/embedded/**/*.test.ts', { cwd: root })) t.false(quick.has(file), file);
});

test('end-to-end tests on the in-process stack are in it; those that start processes or a browser are not', (t) => {
  for (const file of ['test/e2e/idempotency.test.ts', 'test/e2e/wait-for-callback.test.ts', 'test/e2e/internal-caller.test.ts']) t.true(quick.has(file), file);
  for (const file of [
    'test/e2e/process-logs.test.ts',
    'test/e2e/multi-node.test.ts',
    'test/e2e/start-command.test.ts',
    'test/e2e/temporal-ui-browser.test.ts',
    'test/e2e/hook-secrets.test.ts',
    'test/e2e/audit-log.test.ts',
  ]) {
    t.false(quick.has(file), file);
  }
});
