// bin/compiled-js.js on a project of its own, in real child processes: a module is served from
// the cache (Node's type stripper is never loaded), an edited source is rebuilt before it loads,
// stack traces keep the source's lines, and without a usable cache everything loads as before.
// The cache is trusted no further than the sources: entries are bound to the source's content,
// private to the user, and any entry or directory someone else could have written is not used.
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const COMPILED_JS = pathToFileURL(join(import.meta.dirname, '../../bin/compiled-js.js')).href;

interface Outcome {
  value: string;
  stripperLoaded: boolean;
  stack: string;
  stderr: string;
}

const modeOf = (path: string) => statSync(path).mode & 0o777;
/** Another user's id, for files this test can hand over only as root. */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0 ? test : test.skip;

function project(t: { teardown(fn: () => void): void }) {
  const root = mkdtempSync(join(tmpdir(), 'flowhook-compiled-js-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'src'));
  writeFileSync(
    join(root, 'src/a.ts'),
    "import { b } from './b.ts';\nimport { boom } from './c.ts';\nexport const value: string = 'a' + b;\nexport { boom };\n",
  );
  writeFileSync(join(root, 'src/b.ts'), "export const b: string = 'b';\n");
  // The throw is on line 5, after lines of types only: positions must survive stripping.
  writeFileSync(
    join(root, 'src/c.ts'),
    'type Why = {\n  reason: string;\n};\nexport function boom(why: Why): never {\n  throw new Error(why.reason);\n}\n',
  );
  const layout = { projectRoot: root, sourceDirs: ['src'], cacheDir: join(root, 'cache') };
  const driver = join(root, 'driver.mjs');
  writeFileSync(
    driver,
    `if (process.env.TEST_UMASK) process.umask(Number.parseInt(process.env.TEST_UMASK, 8));
const { useCompiledJs } = await import(${JSON.stringify(COMPILED_JS)});
useCompiledJs(process.env, ${JSON.stringify(layout)});
const a = await import(${JSON.stringify(pathToFileURL(join(root, 'src/a.ts')).href)});
let stack = '';
try { a.boom({ reason: 'x' }); } catch (error) { stack = error.stack; }
console.log(JSON.stringify({ value: a.value, stripperLoaded: process.moduleLoadList.some((m) => m.includes('amaro')), stack }));`,
  );
  const run = async (env: Record<string, string> = {}): Promise<Outcome> => {
    // Without V8's compile cache (NODE_COMPILE_CACHE, which the quick lane sets): it keeps stripped
    // TypeScript too, and would spare the child the stripper whatever the hook does.
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [driver], {
      env: { ...process.env, NODE_COMPILE_CACHE: undefined, ...env },
      encoding: 'utf8',
    });
    return { ...(JSON.parse(stdout) as Omit<Outcome, 'stderr'>), stderr };
  };
  const entry = join(root, 'cache/src/a.ts.js');
  /** Changes what the entry of a.ts runs, keeping its first line: a tampered entry that would pass a header check. */
  const tamper = (path = entry) =>
    writeFileSync(path, readFileSync(entry, 'utf8').replace("'a' + b", "'TAMPERED' + b"));
  return { root, layout, run, entry, tamper };
}

test('modules load from the cache without the type stripper, with the source positions', async (t) => {
  const { run, tamper } = project(t);
  const first = await run();
  t.is(first.value, 'ab');
  t.false(first.stripperLoaded);
  t.regex(first.stack, /src\/c\.ts:5:9/);
  // The entry is what runs: change it behind the hook's back (as its owner), keeping its first line.
  tamper();
  t.is((await run()).value, 'TAMPEREDb');
});

test('an edited source is rebuilt before it loads; an entry of another version is never used', async (t) => {
  const { root, run } = project(t);
  t.is((await run()).value, 'ab');
  writeFileSync(join(root, 'src/b.ts'), "export const b: string = 'second';\n");
  const after = await run();
  t.is(after.value, 'asecond');
  t.false(after.stripperLoaded, 'rebuilt by the child, not stripped in the process');
  t.regex(
    readFileSync(join(root, 'cache/src/b.ts.js'), 'utf8'),
    /^\/\/ flowhook-js sha256:[0-9a-f]{64}\nexport const b {9}= 'second';\n$/,
  );
});

test("an entry is bound to its source's content: same size and modification time, other text, is rebuilt", async (t) => {
  const { root, run } = project(t);
  // A whole second, so that setting it again restores it exactly (as an archive or a checkout may).
  const source = join(root, 'src/b.ts');
  const when = new Date('2026-01-01T00:00:00Z');
  utimesSync(source, when, when);
  t.is((await run()).value, 'ab');
  writeFileSync(source, "export const b: string = 'X';\n");
  utimesSync(source, when, when);
  t.is((await run()).value, 'aX');
});

test('the cache is private whatever the umask: directories 0700, entries 0600', async (t) => {
  const { root, run, entry } = project(t);
  t.is((await run({ TEST_UMASK: '000' })).value, 'ab');
  t.is(modeOf(join(root, 'cache')), 0o700);
  t.is(modeOf(join(root, 'cache/src')), 0o700);
  t.is(modeOf(entry), 0o600);
});

test('an entry others may write, or a link in its place, is not used but rebuilt', async (t) => {
  const { root, run, entry, tamper } = project(t);
  t.is((await run()).value, 'ab');
  tamper();
  chmodSync(entry, 0o666);
  const writable = await run();
  t.is(writable.value, 'ab');
  t.false(writable.stripperLoaded, 'rebuilt and served from the cache');
  t.is(modeOf(entry), 0o600);

  // A link to a file of the user's own, 0600, with a first line that matches.
  const elsewhere = join(root, 'elsewhere.js');
  tamper(elsewhere);
  chmodSync(elsewhere, 0o600);
  rmSync(entry);
  symlinkSync(elsewhere, entry);
  t.is((await run()).value, 'ab');
  t.false(lstatSync(entry).isSymbolicLink());
});

asRoot('an entry owned by another user is not used but rebuilt', async (t) => {
  const { run, entry, tamper } = project(t);
  t.is((await run()).value, 'ab');
  tamper();
  chmodSync(entry, 0o644);
  chownSync(entry, NOBODY, NOBODY);
  t.is((await run()).value, 'ab');
  t.is(statSync(entry).uid, process.getuid!());
});

test('a cache directory that is a link is not used at all: a warning, and modules load as TypeScript', async (t) => {
  const { root, layout, run, tamper } = project(t);
  t.is((await run()).value, 'ab');
  tamper();
  renameSync(layout.cacheDir, join(root, 'planted'));
  symlinkSync(join(root, 'planted'), layout.cacheDir);
  const linked = await run();
  t.is(linked.value, 'ab');
  t.true(linked.stripperLoaded);
  t.regex(linked.stderr, /not using the compiled-JS cache .*cache: it is a symbolic link/);
});

asRoot(
  'a cache directory owned by another user is not used; one of ours that others may write is made 0700 and used',
  async (t) => {
    const { root, layout, run, entry, tamper } = project(t);
    t.is((await run()).value, 'ab');
    tamper();
    chownSync(layout.cacheDir, NOBODY, NOBODY);
    const foreign = await run();
    t.is(foreign.value, 'ab');
    t.true(foreign.stripperLoaded);
    t.regex(foreign.stderr, new RegExp(`owned by user ${NOBODY}`));

    chownSync(layout.cacheDir, process.getuid!(), process.getgid!());
    chmodSync(layout.cacheDir, 0o777);
    rmSync(entry);
    const opened = await run();
    t.is(opened.value, 'ab');
    t.false(opened.stripperLoaded);
    t.is(modeOf(join(root, 'cache')), 0o700);
  },
);

test('without a usable cache, or with FLOWHOOK_COMPILED_JS=off, Node strips the types as before', async (t) => {
  const { root, run } = project(t);
  const off = await run({ FLOWHOOK_COMPILED_JS: 'off' });
  t.is(off.value, 'ab');
  t.true(off.stripperLoaded);
  // A file where the cache directory should be: nothing can be written there.
  writeFileSync(join(root, 'cache'), 'not a directory');
  const unwritable = await run();
  t.regex(unwritable.stderr, /it is not a directory/);
  t.is(unwritable.value, 'ab');
  t.true(unwritable.stripperLoaded);
  t.regex(unwritable.stack, /src\/c\.ts:5:9/);
});
