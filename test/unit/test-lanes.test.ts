// The quick lane (npm run test:quick): the files that start nothing — no
// PostgreSQL, no Temporal, no browser, no flowhook process — and check no
// whole project, wherever they are filed; every other file stays with npm test.
import test from 'ava';
import { globSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { allTestFiles, needRunInfrastructure, quickLaneFiles, testUses } from '../support/test-lanes.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const quick = new Set(quickLaneFiles(root));
const uses = (file: string) => [...testUses(root, file)].sort();

test('every unit and facade test is in the quick lane but the project checks, and a file of another folder that starts nothing', (t) => {
  for (const file of globSync('test/{unit,facade}/**/*.test.ts', { cwd: root })) {
    if (uses(file).includes('project check')) t.deepEqual(uses(file), ['project check'], file);
    else t.true(quick.has(file), `${file}: ${uses(file).join(', ')}`);
  }
  for (const file of ['test/unit/lint-rules.test.ts', 'test/unit/temporal-contract.test.ts'])
    t.false(quick.has(file), file);
  t.true(quick.has('test/embedded/data-dir-permissions.test.ts'));
  t.true(quick.size < allTestFiles(root).length);
});

test('a file that starts something is not in it, classed by what it or the test modules it imports use', (t) => {
  const expected: Record<string, string[]> = {
    'test/e2e/idempotency.test.ts': ['postgres+temporal'],
    'test/e2e/wait-for-callback.test.ts': ['postgres+temporal'],
    'test/e2e/process-logs.test.ts': ['postgres+temporal', 'processes'],
    'test/e2e/multi-node.test.ts': ['postgres+temporal', 'processes'],
    'test/embedded/bearer-only-facade.test.ts': ['processes'],
    'test/embedded/postgres-role.test.ts': ['embedded'],
    'test/e2e/console-bundle.test.ts': ['browser', 'console build'],
  };
  for (const [file, used] of Object.entries(expected)) {
    t.deepEqual(uses(file), used, file);
    t.false(quick.has(file), file);
  }
  for (const file of [
    'test/e2e/temporal-ui-browser.test.ts',
    'test/e2e/start-command.test.ts',
    'test/embedded/embedded.test.ts',
  ])
    t.false(quick.has(file), file);
});

test('files named start PostgreSQL and Temporal only when one of them needs them, or when a name cannot be told', (t) => {
  t.false(needRunInfrastructure(root, ['test/unit/duration.test.ts', 'test/facade']));
  t.false(needRunInfrastructure(root, ['test/unit/duration.test.ts:12', 'test/unit/formula*.test.ts']));
  t.false(needRunInfrastructure(root, ['test/embedded/postgres-role.test.ts']), 'it starts a PostgreSQL of its own');
  t.true(needRunInfrastructure(root, ['test/unit/duration.test.ts', 'test/e2e/idempotency.test.ts']));
  t.true(needRunInfrastructure(root, ['test/e2e']));
  t.true(needRunInfrastructure(root, ['test/e2e/no-such-file.test.ts']));
});
