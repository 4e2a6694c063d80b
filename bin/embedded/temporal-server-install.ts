// The official Temporal server (not the dev server) and its SQL schema tool,
// for running flowhook on a real Temporal cluster locally (FLOWHOOK_TEMPORAL=server).
// No prebuilt download works where GitHub is unreachable, so both are built
// once from the Go module proxy (minutes on a small machine) and cached under
// <dataDir>/temporal-server-<version>/ together with the module's PostgreSQL
// schema, which the schema tool needs as files.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The server release flowhook is tested with (docs/how-to/deploy.md, A Temporal cluster). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const MODULE = 'go.temporal.io/server';

export type TemporalServerInstall = {
  /** The `temporal-server` binary. */
  server: string;
  /** The `temporal-sql-tool` binary. */
  sqlTool: string;
  /** schema/postgresql/v12 of the server module: `temporal/versioned` and `visibility/versioned`. */
  postgresSchema: string;
};

// Tests and the bench may ask at once; one build is enough.
const inFlight = new Map<string, Promise<TemporalServerInstall>>();

/**
 * The cached install, building it first when it is missing. `home` (the test runner's and the
 * bench's TEMPORAL_SERVER_HOME) names a directory laid out the same way (bin/temporal-server,
 * bin/temporal-sql-tool, schema/postgresql/v12) for an install made elsewhere.
 */
export function resolveTemporalServer(options: {
  dataDir: string;
  log: (message: string) => void;
  home?: string;
}): Promise<TemporalServerInstall> {
  const home = options.home
    ? resolve(options.home)
    : join(resolve(options.dataDir), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
  let found = inFlight.get(home);
  if (!found) {
    found = installOnce(home, !options.home, options.log);
    inFlight.set(home, found);
    found.catch(() => inFlight.delete(home));
  }
  return found;
}

function layout(home: string): TemporalServerInstall {
  return {
    server: join(home, 'bin', 'temporal-server'),
    sqlTool: join(home, 'bin', 'temporal-sql-tool'),
    postgresSchema: join(home, 'schema', 'postgresql', 'v12'),
  };
}

function complete(install: TemporalServerInstall): boolean {
  return (
    existsSync(install.server) &&
    existsSync(install.sqlTool) &&
    existsSync(join(install.postgresSchema, 'temporal', 'versioned')) &&
    existsSync(join(install.postgresSchema, 'visibility', 'versioned'))
  );
}

async function installOnce(
  home: string,
  mayBuild: boolean,
  log: (message: string) => void,
): Promise<TemporalServerInstall> {
  const install = layout(home);
  if (complete(install)) return install;
  if (!mayBuild)
    throw new Error(
      `TEMPORAL_SERVER_HOME=${home} lacks bin/temporal-server, bin/temporal-sql-tool or schema/postgresql/v12`,
    );
  log(
    `building the Temporal server ${TEMPORAL_SERVER_VERSION} from the Go module proxy into ${home} (once; several minutes)…`,
  );
  // Built into a scratch directory and moved in place: an interrupted build never looks complete.
  const scratch = `${home}.partial`;
  rmSync(scratch, { recursive: true, force: true });
  const bin = join(scratch, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const [pkg, name] of [
    ['cmd/server', 'temporal-server'],
    ['cmd/tools/sql', 'temporal-sql-tool'],
  ] as const) {
    await go(['install', `${MODULE}/${pkg}@${TEMPORAL_SERVER_VERSION}`], { GOBIN: bin });
    renameSync(join(bin, pkg.split('/').pop()!), join(bin, name));
  }
  const moduleDir = (await go(['env', 'GOMODCACHE'], {})).trim();
  cpSync(
    join(moduleDir, `${MODULE}@${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12'),
    join(scratch, 'schema', 'postgresql', 'v12'),
    { recursive: true },
  );
  rmSync(home, { recursive: true, force: true });
  renameSync(scratch, home);
  return install;
}

async function go(args: string[], env: Record<string, string>): Promise<string> {
  try {
    const { stdout } = await run('go', args, {
      env: { ...process.env, ...env },
      timeout: 45 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT')
      throw new Error(
        'building the Temporal server needs Go (https://go.dev/dl/) on PATH, or set TEMPORAL_SERVER_HOME to an existing install',
      );
    throw new Error(
      `go ${args.join(' ')} failed: ${(failure.stderr ?? failure.message).trim().split('\n').slice(-5).join('\n')}`,
    );
  }
}
