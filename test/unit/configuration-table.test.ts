// The configuration table is the only list of variables: the source reads none that is not in
// it, every row is read somewhere, and the environment is read only where a process hands it to
// the table. (The configuration reference rendered from it is checked with the rest of the
// handbook's generated pages: test/unit/docs-generated.test.ts.)
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIGURATION_TABLE } from '../../common/configuration/configuration-table.ts';
import type { AnySetting } from '../../common/configuration/setting.ts';
import { ENVIRONMENT_READERS } from '../../common/configuration/environment-readers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRODUCT_DIRS = ['bin', 'common', 'engine', 'facade', 'flow', 'workflows'];
/** Where the rows are declared: naming a variable there is not reading it. */
const TABLE_DIR = 'common/configuration/';
const ROWS = Object.entries(CONFIGURATION_TABLE) as [string, AnySetting][];

function productFiles(dir: string, files: string[] = []): string[] {
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) productFiles(path, files);
    else if (/\.(ts|js)$/.test(name) || path === join('bin', 'flowhook')) files.push(path);
  }
  return files;
}

const SOURCES = PRODUCT_DIRS.flatMap((dir) => productFiles(dir)).map((path) => ({
  path,
  text: readFileSync(join(ROOT, path), 'utf8'),
}));
const NAME = String.raw`((?:FLOWHOOK|TEMPORAL|OTEL)_[A-Z0-9_]*[A-Z0-9])\b`;
/** A read: a property access (`settings.X`, `process.env.X`) or the name as a whole string (`settings['X']`, a list of names). */
const READ = new RegExp(String.raw`(?:[\w)\]]\.|['"\`])${NAME}(?!['"\`]?\s*:)`, 'g');

function readsIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const [whole, name] of text.matchAll(READ)) {
    // A quoted name must be the whole string ('FLOWHOOK_X'), not a word in a message.
    if (/^['"`]/.test(whole) && !new RegExp(String.raw`['"\`]${name}['"\`]`).test(text)) continue;
    names.add(name!);
  }
  return names;
}

const READS = SOURCES.filter(({ path }) => !path.startsWith(TABLE_DIR)).map(({ path, text }) => ({
  path,
  names: readsIn(text),
}));

test('the source reads no FLOWHOOK_* variable that is not in the table', (t) => {
  const unknown = READS.flatMap(({ path, names }) =>
    [...names]
      .filter((name) => name.startsWith('FLOWHOOK_') && !(name in CONFIGURATION_TABLE))
      .map((name) => `${name} (${path})`),
  );
  t.deepEqual(unknown, [], 'add a row to common/configuration/table/ for each');
});

test('every row is read somewhere (a retired one by the table itself, which refuses it)', (t) => {
  const read = new Set(READS.flatMap(({ names }) => [...names]));
  const unread = ROWS.filter(([name, row]) => row.retired === undefined && !read.has(name)).map(([name]) => name);
  t.deepEqual(unread, [], 'a row nobody reads documents a variable that does nothing');
});

test('the scan sees reads: a property access and a quoted name count, a word in a message does not', (t) => {
  t.deepEqual(
    [...readsIn("settings.FLOWHOOK_ENGINE_PORT; env['TEMPORAL_CLI']")],
    ['FLOWHOOK_ENGINE_PORT', 'TEMPORAL_CLI'],
  );
  t.deepEqual([...readsIn("throw new Error('set FLOWHOOK_PAYLOAD_KEY or FLOWHOOK_PAYLOAD_KEY_FILE, not both')")], []);
  t.deepEqual(
    [...readsIn('{ ...env, FLOWHOOK_ENGINE_URL: engineUrl }')],
    [],
    'setting a variable for a child is not reading it',
  );
});

test('process.env is read only where a process hands its environment to the table (and by the launcher and child-process set-up)', (t) => {
  const outside = SOURCES.filter(
    ({ path, text }) => /process\.env\b/.test(text.replace(/\/\/.*$/gm, '')) && !ENVIRONMENT_READERS.includes(path),
  ).map(({ path }) => path);
  t.deepEqual(outside, []);
});

test('every row is complete: a one-line meaning, a group, readers, and a default its own type reads back', (t) => {
  for (const [name, row] of ROWS) {
    t.true(row.meaning.length > 0 && !row.meaning.includes('\n'), name);
    t.true(row.group.length > 0, name);
    t.true(row.processes.length > 0, name);
    if (row.default !== undefined) t.deepEqual(row.type.parse(row.type.format(row.default)), row.default, name);
    if (row.type.description.startsWith('token')) t.true(row.secret, `${name} is a credential`);
  }
});
