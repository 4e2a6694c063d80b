// Liveness checks for processes we did not necessarily spawn ourselves (a
// postmaster or dev server left behind by a crashed run), where no
// ChildProcess object tells us when they are gone.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** True while `pid` exists and is not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // In containers PID 1 often never reaps orphans; a zombie holds no port or
  // lock, so it counts as gone.
  const stat = readProc(pid, 'stat');
  const state = stat?.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z';
}

/** Polls until `pid` is gone; false when it still runs after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

/** The argv of a running process (Linux /proc), or undefined when unknown. */
export function commandLineOf(pid: number): string[] | undefined {
  const raw = readProc(pid, 'cmdline');
  return raw ? raw.split('\0').filter(Boolean) : undefined;
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}
