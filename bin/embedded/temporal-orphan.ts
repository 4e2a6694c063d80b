// A dev server whose parent was killed outright keeps running, holding its
// ports and SQLite file. With persistent storage we note the server's PID next
// to the database file, and the next start ends such a leftover first.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { commandLineOf, isAlive, waitForExit } from './process-liveness.ts';

export function pidFileFor(dbFile: string): string {
  return `${dbFile}.pid`;
}

export async function endLeftoverServer(dbFile: string, log: (message: string) => void): Promise<void> {
  const pidFile = pidFileFor(dbFile);
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
  } catch {
    return;
  }
  const argv = commandLineOf(pid) ?? [];
  // Only a dev server on this very file is ours to stop; a reused PID is left alone.
  if (isAlive(pid) && argv.includes('start-dev') && argv.includes(dbFile)) {
    log(`a Temporal dev server (pid ${pid}) from an earlier run still uses ${dbFile}; stopping it`);
    process.kill(pid, 'SIGTERM');
    if (!(await waitForExit(pid, 10_000))) {
      process.kill(pid, 'SIGKILL');
      if (!(await waitForExit(pid, 5_000)))
        throw new Error(`could not stop the earlier Temporal dev server (pid ${pid}); kill it by hand`);
    }
  }
  rmSync(pidFile, { force: true });
}

export function recordServerPid(dbFile: string, pid: number): void {
  writeFileSync(pidFileFor(dbFile), `${pid}\n`, { mode: 0o600 });
}

/** Removes the PID file if it still names `pid` (a newer server may have replaced it). */
export function forgetServerPid(dbFile: string, pid: number): void {
  try {
    if (Number.parseInt(readFileSync(pidFileFor(dbFile), 'utf8'), 10) === pid)
      rmSync(pidFileFor(dbFile), { force: true });
  } catch {
    // Already gone.
  }
}
