// A run that was killed (SIGKILL, power loss, closed terminal) can leave
// postmaster.pid behind, or even a postmaster still running on our data
// directory and port. PostgreSQL refuses to start while the PID in that file
// is alive, and after a container restart that PID often belongs to some
// unrelated process. Sort it out before starting.
import { readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { commandLineOf, isAlive, waitForExit } from './process-liveness.ts';

export async function clearStaleLock(pgdata: string, log: (message: string) => void): Promise<void> {
  const lockFile = join(pgdata, 'postmaster.pid');
  let content: string;
  try {
    content = readFileSync(lockFile, 'utf8');
  } catch {
    return;
  }
  const pid = Number.parseInt(content.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) {
    rmSync(lockFile, { force: true });
    return;
  }
  const argv = commandLineOf(pid);
  // Without /proc we cannot tell; PostgreSQL's own check then decides, with its own message.
  if (!argv) return;
  if (basename(argv[0] ?? '') !== 'postgres') {
    // The PID was reused by an unrelated program: the lock is stale.
    rmSync(lockFile, { force: true });
    return;
  }
  if (!argv.includes(pgdata)) {
    // A postmaster we did not start (other path spelling, another tool): never remove its lock.
    throw new Error(
      `${lockFile} names a running PostgreSQL (pid ${pid}: ${argv.join(' ')}); stop it before starting the embedded one`,
    );
  }
  log(`a PostgreSQL (pid ${pid}) from an earlier run is still running on ${pgdata}; stopping it`);
  // What `pg_ctl stop -m fast` does: SIGINT, then the immediate-shutdown SIGQUIT if it hangs.
  process.kill(pid, 'SIGINT');
  if (!(await waitForExit(pid, 30_000))) process.kill(pid, 'SIGQUIT');
  if (await waitForExit(pid, 10_000)) {
    // Normally the postmaster removes it; not always after SIGQUIT, and an
    // unreaped zombie would still look alive to PostgreSQL's own check.
    rmSync(lockFile, { force: true });
    return;
  }
  throw new Error(
    `a PostgreSQL (pid ${pid}) from an earlier run keeps running on ${pgdata} and did not stop on SIGINT/SIGQUIT; stop it by hand (kill ${pid})`,
  );
}
