// Creates the cluster once. initdb runs into a staging directory that is
// renamed into place only on success, so a run killed halfway through leaves
// nothing that a later start would mistake for a usable cluster.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { childEnvironment } from './child-environment.ts';
import type { RunAs } from './postgres-os-user.ts';

const run = promisify(execFile);

export type InitOptions = { initdb: string; pgdata: string; user: string; password: string; runAs?: RunAs };

/** True when a new cluster was created, false when one was already there. */
export async function initialiseOnce(options: InitOptions): Promise<boolean> {
  const { pgdata, runAs } = options;
  if (existsSync(join(pgdata, 'PG_VERSION'))) return false;
  if (existsSync(pgdata)) {
    if (readdirSync(pgdata).length > 0) {
      throw new Error(
        `${pgdata} exists but holds no PostgreSQL cluster (no PG_VERSION); move it away so a new one can be created`,
      );
    }
    rmdirSync(pgdata);
  }
  const parent = dirname(pgdata);
  const staging = `${pgdata}.initdb-tmp`;
  // initdb reads the password from a file; this one lives beside the data, 0600, owned by the server's user.
  const pwfile = join(parent, `.initdb-pw-${randomBytes(6).toString('hex')}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  writeFileSync(pwfile, `${options.password}\n`, { mode: 0o600 });
  if (runAs) {
    chownSync(staging, runAs.uid, runAs.gid);
    chownSync(pwfile, runAs.uid, runAs.gid);
  }
  try {
    await run(
      options.initdb,
      [
        `--pgdata=${staging}`,
        `--username=${options.user}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--no-locale',
      ],
      {
        cwd: parent,
        uid: runAs?.uid,
        gid: runAs?.gid,
        env: childEnvironment({ LC_ALL: 'C' }),
        maxBuffer: 4 * 1024 * 1024,
      },
    );
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    throw new Error(`initdb failed for ${pgdata}:\n${detail}`);
  } finally {
    rmSync(pwfile, { force: true });
  }
  renameSync(staging, pgdata);
  return true;
}
