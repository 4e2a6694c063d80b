// The long-running processes load flowhook's modules as plain JavaScript instead of having Node
// strip their TypeScript types while they load. Node strips types with a WebAssembly build of
// swc that, once loaded, stays in the process: measured ~20-30 MiB of resident memory per
// process (engine idle 170 → 139 MiB, facade 121 → 98 MiB). So each `.ts` module's
// type-stripped text is kept in a cache next to the installed packages, built by a short-lived
// child process whenever a source file changed, and a module load hook hands Node that text for
// the `.ts` URL. The module keeps its URL, so `import.meta.url`, relative asset paths and stack
// traces (stripping keeps every position) are exactly as without the cache.
//
// Stale entries are never used: an entry's first line names its source's size and modification
// time, and the hook checks both at every load; a source without a fresh entry is loaded by Node as
// before. When the cache cannot be written (a read-only install) everything loads as before.
// FLOWHOOK_COMPILED_JS=off turns the cache off. This file is JavaScript because loading it must
// not load the type stripper.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PROJECT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Where the sources are and where their entries go; tests use a project of their own. */
export const FLOWHOOK_LAYOUT = Object.freeze({
  projectRoot: PROJECT_ROOT,
  /** The directories that hold the processes' modules (tests and examples are never loaded by them). */
  sourceDirs: ['bin', 'common', 'engine', 'facade', 'proto', 'workflows'],
  cacheDir: join(PROJECT_ROOT, 'node_modules', '.cache', 'flowhook-js'),
});

/** Serves fresh cache entries for the project's `.ts` modules; builds the missing and stale ones first. */
export function useCompiledJs(env = process.env, layout = FLOWHOOK_LAYOUT) {
  if (env.FLOWHOOK_COMPILED_JS === 'off' || typeof nodeModule.registerHooks !== 'function') return;
  const stale = staleSources(layout);
  if (stale.length > 0) build(layout, stale);
  const projectUrl = `${pathToFileURL(layout.projectRoot).href}/`;
  nodeModule.registerHooks({
    load(url, context, nextLoad) {
      if (url.startsWith(projectUrl) && url.endsWith('.ts') && !url.includes('/node_modules/')) {
        const source = freshEntry(layout, fileURLToPath(url));
        if (source !== undefined) return { format: 'module', source, shortCircuit: true };
      }
      return nextLoad(url, context);
    },
  });
}

function entryPath(layout, sourcePath) {
  return join(layout.cacheDir, `${relative(layout.projectRoot, sourcePath)}.js`);
}

/** The entry's text when it was built from the source as it is now; otherwise undefined. */
function freshEntry(layout, sourcePath) {
  try {
    const text = readFileSync(entryPath(layout, sourcePath), 'utf8');
    const newline = text.indexOf('\n');
    // The first line names the source's size and modification time when the entry was built.
    if (newline < 0 || text.slice(0, newline) !== header(statSync(sourcePath))) return undefined;
    // The header line is replaced by nothing and the text starts on line 1 again: positions as in the source.
    return text.slice(newline + 1);
  } catch {
    return undefined;
  }
}

function header(source) {
  return `// flowhook-js ${source.size} ${source.mtimeMs}`;
}

function staleSources(layout) {
  const stale = [];
  const visit = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && freshEntry(layout, path) === undefined) stale.push(path);
    }
  };
  for (const dir of layout.sourceDirs) visit(join(layout.projectRoot, dir));
  return stale;
}

/** Strips in a child process, so the stripper never loads into this one. Failing is not fatal: Node strips as before. */
function build(layout, sources) {
  // Silent either way: a process whose cache could not be written runs as it would without one.
  spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), 'build'], {
    input: JSON.stringify({ layout, sources }),
    stdio: ['pipe', 'ignore', 'ignore'],
    timeout: 60_000,
  });
}

function buildEntries(layout, sources) {
  for (const sourcePath of sources) {
    if (!sourcePath.startsWith(layout.projectRoot + sep)) continue;
    const source = statSync(sourcePath);
    const text = readFileSync(sourcePath, 'utf8');
    let stripped;
    try {
      stripped = nodeModule.stripTypeScriptTypes(text, { mode: 'strip' });
    } catch {
      // Not erasable syntax: Node's own loader reports it with the file's name.
      continue;
    }
    const entry = entryPath(layout, sourcePath);
    mkdirSync(dirname(entry), { recursive: true });
    // Written aside and renamed: several processes starting at once never read half an entry.
    const temporary = `${entry}.${process.pid}.tmp`;
    writeFileSync(temporary, `${header(source)}\n${stripped}`);
    renameSync(temporary, entry);
  }
}

if (process.argv[2] === 'build' && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { layout, sources } = JSON.parse(readFileSync(0, 'utf8'));
  buildEntries(layout, sources);
}
