// bin/compiled-js.js on a project of its own, in real child processes: a module is served from
// the cache (Node's type stripper is never loaded), an edited source is rebuilt before it loads,
// stack traces keep the source's lines, and without a usable cache everything loads as before.
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const COMPILED_JS = pathToFileURL(join(import.meta.dirname, '../../bin/compiled-js.js')).href;

interface Outcome {
  value: string;
  stripperLoaded: boolean;
  stack: string;
}

function project(t: { teardown(fn: () => void): void }) {
  const root = mkdtempSync(join(tmpdir(), 'flowhook-compiled-js-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/a.ts'), "import { b } from './b.ts';\nimport { boom } from './c.ts';\nexport const value: string = 'a' + b;\nexport { boom };\n");
  writeFileSync(join(root, 'src/b.ts'), "export const b: string = 'b';\n");
  // The throw is on line 5, after lines of types only: positions must survive stripping.
  writeFileSync(join(root, 'src/c.ts'), 'type Why = {\n  reason: string;\n};\nexport function boom(why: Why): never {\n  throw new Error(why.reason);\n}\n');
  const layout = { projectRoot: root, sourceDirs: ['src'], cacheDir: join(root, 'cache') };
  const driver = join(root, 'driver.mjs');
  writeFileSync(
    driver,
    `const { useCompiledJs } = await import(${JSON.stringify(COMPILED_JS)});
useCompiledJs(process.env, ${JSON.stringify(layout)});
const a = await import(${JSON.stringify(pathToFileURL(join(root, 'src/a.ts')).href)});
let stack = '';
try { a.boom({ reason: 'x' }); } catch (error) { stack = error.stack; }
console.log(JSON.stringify({ value: a.value, stripperLoaded: process.moduleLoadList.some((m) => m.includes('amaro')), stack }));`,
  );
  const run = async (env: Record<string, string> = {}): Promise<Outcome> => JSON.parse((await promisify(execFile)(process.execPath, [driver], { env: { ...process.env, ...env }, encoding: 'utf8' })).stdout) as Outcome;
  return { root, layout, run };
}

test('modules load from the cache without the type stripper, with the source positions', async (t) => {
  const { root, run } = project(t);
  const first = await run();
  t.is(first.value, 'ab');
  t.false(first.stripperLoaded);
  t.regex(first.stack, /src\/c\.ts:5:9/);
  // The entry is what runs: change it behind the hook's back, keeping its first line.
  const entry = join(root, 'cache/src/a.ts.js');
  writeFileSync(entry, readFileSync(entry, 'utf8').replace("'a' + b", "'A' + b"));
  t.is((await run()).value, 'Ab');
});

test('an edited source is rebuilt before it loads; an entry of another version is never used', async (t) => {
  const { root, run } = project(t);
  t.is((await run()).value, 'ab');
  writeFileSync(join(root, 'src/b.ts'), "export const b: string = 'second';\n");
  const after = await run();
  t.is(after.value, 'asecond');
  t.false(after.stripperLoaded, 'rebuilt by the child, not stripped in the process');
  t.regex(readFileSync(join(root, 'cache/src/b.ts.js'), 'utf8'), /^\/\/ flowhook-js 35 [\d.]+\nexport const b {9}= 'second';\n$/);
});

test('without a usable cache, or with FLOWHOOK_COMPILED_JS=off, Node strips the types as before', async (t) => {
  const { root, run } = project(t);
  const off = await run({ FLOWHOOK_COMPILED_JS: 'off' });
  t.is(off.value, 'ab');
  t.true(off.stripperLoaded);
  // A file where the cache directory should be: nothing can be written there.
  writeFileSync(join(root, 'cache'), 'not a directory');
  const unwritable = await run();
  t.is(unwritable.value, 'ab');
  t.true(unwritable.stripperLoaded);
  t.regex(unwritable.stack, /src\/c\.ts:5:9/);
});
