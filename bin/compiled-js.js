// The long-running processes load flowhook's modules as plain JavaScript instead of having Node
// strip their TypeScript types while they load. Node strips types with a WebAssembly build of
// swc that, once loaded, stays in the process: measured ~20-30 MiB of resident memory per
// process (engine idle 170 → 139 MiB, facade 121 → 98 MiB). So each `.ts` module's
// type-stripped text is kept in a cache next to the installed packages, built by a short-lived
// child process whenever a source file changed, and a module load hook hands Node that text for
// the `.ts` URL. The module keeps its URL, so `import.meta.url`, relative asset paths and stack
// traces (stripping keeps every position) are exactly as without the cache.
//
// The cache runs code, so it is trusted no further than the sources are:
// - an entry's first line names the SHA-256 of the source it was built from, and the hook hashes
//   the source at every load: an entry for other text (an edited source, one copied in, a clock
//   that went back) is never used, and a source without a fresh entry is loaded by Node as before;
// - the cache directory is created 0700 and entries 0600, each written aside and renamed;
// - an entry is used only when it is a regular file (not a link) owned by this process's user
//   and writable by nobody else, checked on the open file it is read from; any other is rebuilt;
// - a cache directory that is not a directory, a link, or owned by another user is not used at
//   all (one warning on stderr; everything loads as without the cache); one of ours that others
//   may enter or write — as releases before this one left it, under the umask — is made 0700.
// When the cache cannot be written (a read-only install) everything loads as before.
// FLOWHOOK_COMPILED_JS=off turns the cache off. This file is JavaScript because loading it must
// not load the type stripper.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PROJECT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Where the sources are and where their entries go; tests use a project of their own. */
export const FLOWHOOK_LAYOUT = Object.freeze({
  projectRoot: PROJECT_ROOT,
  /** The directories that hold the processes' modules (tests and examples are never loaded by them). */
  sourceDirs: ['bin', 'common', 'engine', 'facade', 'flow', 'proto', 'workflows'],
  cacheDir: join(PROJECT_ROOT, 'node_modules', '.cache', 'flowhook-js'),
});

/** Group and others may do nothing in the cache; entries are the user's to read and write. */
const DIRECTORY_MODE = 0o700;
const ENTRY_MODE = 0o600;
const WRITABLE_BY_OTHERS = 0o022;
// Windows has no owners or modes in this sense: there the checks that need them are skipped.
const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

/** Serves fresh cache entries for the project's `.ts` modules; builds the missing and stale ones first. */
export function useCompiledJs(env = process.env, layout = FLOWHOOK_LAYOUT) {
  if (env.FLOWHOOK_COMPILED_JS === 'off' || typeof nodeModule.registerHooks !== 'function') return;
  const unsafe = unsafeCacheDir(layout.cacheDir);
  if (unsafe) {
    process.stderr.write(
      `flowhook: not using the compiled-JS cache ${layout.cacheDir}: ${unsafe}. Modules load as TypeScript (remove it to have it rebuilt, or set FLOWHOOK_COMPILED_JS=off).\n`,
    );
    return;
  }
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

/**
 * Why the cache directory must not be used, or undefined when it may (also when it does not
 * exist yet). Ours but open to others: tightened to 0700, since its entries are checked one by one.
 */
function unsafeCacheDir(cacheDir) {
  let stats;
  try {
    stats = lstatSync(cacheDir);
  } catch (error) {
    return error.code === 'ENOENT' ? undefined : `it cannot be examined (${error.code})`;
  }
  if (stats.isSymbolicLink()) return 'it is a symbolic link';
  if (!stats.isDirectory()) return 'it is not a directory';
  if (uid !== undefined && stats.uid !== uid)
    return `it is owned by user ${stats.uid}, not by this process's user ${uid}`;
  if (uid !== undefined && (stats.mode & 0o077) !== 0) {
    try {
      chmodSync(cacheDir, DIRECTORY_MODE);
    } catch (error) {
      return `others may write to it and it cannot be made 0700 (${error.code})`;
    }
  }
  return undefined;
}

function entryPath(layout, sourcePath) {
  return join(layout.cacheDir, `${relative(layout.projectRoot, sourcePath)}.js`);
}

/** The entry's text when it was built from the source as it is now and nobody else could have written it; otherwise undefined. */
function freshEntry(layout, sourcePath) {
  try {
    const text = readTrustedEntry(entryPath(layout, sourcePath));
    const newline = text?.indexOf('\n') ?? -1;
    // The first line names the SHA-256 of the source the entry was built from.
    if (newline < 0 || text.slice(0, newline) !== header(readFileSync(sourcePath))) return undefined;
    // The header line is replaced by nothing and the text starts on line 1 again: positions as in the source.
    return text.slice(newline + 1);
  } catch {
    return undefined;
  }
}

/** The entry's text, checked on the descriptor it is read from (no link followed, no swap between check and read). */
function readTrustedEntry(path) {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    if (uid !== undefined && (stats.uid !== uid || (stats.mode & WRITABLE_BY_OTHERS) !== 0)) return undefined;
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function header(sourceBytes) {
  return `// flowhook-js sha256:${createHash('sha256').update(sourceBytes).digest('hex')}`;
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
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && freshEntry(layout, path) === undefined)
        stale.push(path);
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
  mkdirSync(dirname(layout.cacheDir), { recursive: true });
  try {
    mkdirSync(layout.cacheDir, { mode: DIRECTORY_MODE });
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  // The parent checked it; checked again, as it may have changed since.
  if (unsafeCacheDir(layout.cacheDir)) return;
  for (const sourcePath of sources) {
    if (!sourcePath.startsWith(layout.projectRoot + sep)) continue;
    const source = readFileSync(sourcePath);
    let stripped;
    try {
      stripped = nodeModule.stripTypeScriptTypes(source.toString('utf8'), { mode: 'strip' });
    } catch {
      // Not erasable syntax: Node's own loader reports it with the file's name.
      continue;
    }
    const entry = entryPath(layout, sourcePath);
    mkdirSync(dirname(entry), { recursive: true, mode: DIRECTORY_MODE });
    // Written aside and renamed: several processes starting at once never read half an entry. The
    // aside file is new (wx), so nothing placed there beforehand is written through.
    const temporary = `${entry}.${process.pid}.tmp`;
    rmSync(temporary, { force: true });
    writeFileSync(temporary, `${header(source)}\n${stripped}`, { flag: 'wx', mode: ENTRY_MODE });
    renameSync(temporary, entry);
  }
}

if (process.argv[2] === 'build' && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { layout, sources } = JSON.parse(readFileSync(0, 'utf8'));
  buildEntries(layout, sources);
}
