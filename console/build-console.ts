// Builds the console's pages (console/dist) with Vite when they are missing or
// older than what they are built from: the console's sources, the generated
// protobuf code, the flow schema and the locked dependencies. `npm install`
// runs it (the `prepare` script), so a fresh clone's `npm start` serves the
// console with nothing else to install; `npm run build:console` forces it.
// A stamp in dist records what the build was made from.
import { createHash } from 'node:crypto';
import { existsSync, globSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'console', 'dist');
const stampFile = join(dist, '.build-stamp');
const INPUTS = [
  'console/index.html',
  'console/vite.config.ts',
  'console/tsconfig.json',
  'console/src/**/*',
  'console/public/**/*',
  'proto/gen/**/*.js',
  'flow.schema.json',
  'package-lock.json',
];

/** A digest of every input's path and content: what a build made from them would be. */
export function sourceStamp(): string {
  const hash = createHash('sha256');
  const files = INPUTS.flatMap((pattern) => globSync(pattern, { cwd: root, withFileTypes: false })).sort();
  for (const file of files) {
    const path = join(root, file);
    try {
      hash.update(`${file}\n`).update(readFileSync(path));
    } catch {
      // a directory the pattern matched
    }
  }
  return hash.digest('hex');
}

export function isConsoleCurrent(): boolean {
  return (
    existsSync(join(dist, 'index.html')) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8').trim() === sourceStamp()
  );
}

/** Builds into a scratch folder and swaps it in, so a running console never serves half a build. */
export async function buildConsole(log: (message: string) => void = () => undefined): Promise<void> {
  const { build } = await import('vite');
  const { default: config } = await import('./vite.config.ts');
  const scratch = join(root, 'console', `.dist-${process.pid}`);
  const started = Date.now();
  const stamp = sourceStamp();
  try {
    await build({ ...config, configFile: false, build: { ...config.build, outDir: scratch } });
    writeFileSync(join(scratch, '.build-stamp'), `${stamp}\n`);
    rmSync(dist, { recursive: true, force: true });
    renameSync(scratch, dist);
  } catch (error) {
    // Another build (a second `flowhook start`) swapped its pages in first: the same sources, so theirs will do.
    if (!isConsoleCurrent()) throw error;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  log(`built the console in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (import.meta.main) {
  const force = process.argv.includes('--force');
  if (!force && isConsoleCurrent()) {
    process.stdout.write('console: the built pages are current\n');
  } else {
    try {
      await buildConsole((message) => process.stdout.write(`console: ${message}\n`));
    } catch (error) {
      // Vite is a development dependency: an install without them (--omit=dev) has no console pages, only its RPCs.
      const missing = (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';
      process.stderr.write(
        `console: not built (${missing ? 'its build tools are not installed: npm install without --omit=dev' : error instanceof Error ? error.message : String(error)})\n`,
      );
      // Never fails `npm install` (prepare): `flowhook start` tries again and says why; `npm run build:console` does fail.
      if (force && !missing) process.exitCode = 1;
    }
  }
}
