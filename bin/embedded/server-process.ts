// A long-running server child that we own: spawned in its own process group
// (so a terminal's Ctrl-C reaches only us and we stop things in order), its
// output kept in a tail for error messages, tracked for exit-time cleanup, and
// stopped by a signal ladder (polite first, SIGKILL last).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { childEnvironment } from './child-environment.ts';
import { trackChild } from './child-processes.ts';
import { createLineTail, type LineTail } from './line-tail.ts';

export type StopStep = { signal: NodeJS.Signals; waitMs: number; wholeGroup?: boolean };

export type ServerProcessOptions = {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  /** Defaults to childEnvironment(): PATH, HOME, locale; nothing of ours. */
  env?: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
  /** Tried in order until the process is gone. */
  stopSteps: StopStep[];
  onStderrLine?: (line: string) => void;
  onStdoutLine?: (line: string) => void;
};

export type ServerProcess = {
  pid: number;
  child: ChildProcess;
  tail: LineTail;
  hasExited(): boolean;
  /** How it ended ("exit code 1", "killed by SIGKILL"); empty while running. */
  exitStatus(): string;
  /** True once stop() was called: an exit after that is no surprise. */
  stopRequested(): boolean;
  /** Resolves when the process has exited (never rejects). */
  exited: Promise<void>;
  /** Idempotent; rejects only when even the last step did not end it. */
  stop(): Promise<void>;
};

export async function spawnServer(options: ServerProcessOptions): Promise<ServerProcess> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    // Never our own environment by default: it holds tokens, keys and database URLs.
    env: options.env ?? childEnvironment(),
    uid: options.uid,
    gid: options.gid,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let gone = false;
  let exitStatus = '';
  let stopping: Promise<void> | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      gone = true;
      exitStatus = signal ? `killed by ${signal}` : `exit code ${code}`;
      resolve();
    });
  });
  const tail = createLineTail();
  // Once we asked it to stop, "connection terminated"/"context canceled" is
  // expected noise: it still goes to the tail, no longer to the user.
  const untilStopping = (onLine?: (line: string) => void) => (line: string) => {
    if (!stopping) onLine?.(line);
  };
  tail.follow(child.stdout, untilStopping(options.onStdoutLine));
  tail.follow(child.stderr, untilStopping(options.onStderrLine));
  try {
    await once(child, 'spawn');
  } catch (error) {
    throw new Error(`${options.name}: cannot run ${options.command}: ${(error as Error).message}`);
  }
  const pid = child.pid as number;

  const signal = (name: NodeJS.Signals, wholeGroup = false) => {
    if (gone) return;
    try {
      process.kill(wholeGroup ? -pid : pid, name);
    } catch {
      // Already gone between the check and the signal.
    }
  };
  const untrack = trackChild({
    name: options.name,
    pid,
    stop: () => stop(),
    signalNow: () => signal(options.stopSteps[0]?.signal ?? 'SIGTERM'),
  });
  exited.then(untrack, untrack);

  const stop = () =>
    (stopping ??= (async () => {
      for (const step of options.stopSteps) {
        if (gone) return;
        signal(step.signal, step.wholeGroup);
        await settledWithin(exited, step.waitMs);
      }
      if (!gone)
        throw new Error(
          `${options.name} (pid ${pid}) did not exit after ${options.stopSteps.map((s) => s.signal).join(', ')}`,
        );
    })());

  return {
    pid,
    child,
    tail,
    hasExited: () => gone,
    exitStatus: () => exitStatus,
    stopRequested: () => stopping !== undefined,
    exited,
    stop,
  };
}

/** Waits until `ready` resolves; a server that never gets there is stopped before its error goes on. */
export async function readyOrStopped(server: ServerProcess, ready: () => Promise<void>): Promise<void> {
  try {
    await ready();
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }
}

/** From now on, an exit nobody asked for is logged with the server's last output; `what` names it ("PostgreSQL"). */
export function logUnexpectedExit(server: ServerProcess, what: string, log: (message: string) => void): void {
  void server.exited.then(() => {
    if (!server.stopRequested())
      log(
        `${what} (pid ${server.pid}) ended unexpectedly (${server.exitStatus()}). Its last output:\n${server.tail.text()}`,
      );
  });
}

/** Waits for `promise` at most `ms`, without leaving a timer behind. */
async function settledWithin(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
