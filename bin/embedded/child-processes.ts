// Every server child we start is tracked here so that Ctrl-C, `kill` or a
// crash of this process does not leave PostgreSQL or Temporal running behind
// it. The application may own shutdown order itself (engine and worker close
// before Temporal goes away); when it listens for the signal too, we leave the
// signal to it and only act as the last-moment safety net on 'exit'.

export type ManagedChild = {
  name: string;
  pid: number;
  /** Orderly, idempotent stop. */
  stop(): Promise<void>;
  /** Synchronous: ask the child to shut down on its own; we are exiting now. */
  signalNow(): void;
};

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const running = new Set<ManagedChild>();
let installed = false;
let stopping: Promise<void> | undefined;

export function trackChild(child: ManagedChild): () => void {
  running.add(child);
  install();
  return () => {
    running.delete(child);
    if (running.size === 0) uninstall();
  };
}

/** Stops every tracked child (in parallel); safe to call more than once. */
export function stopAllChildren(): Promise<void> {
  stopping ??= Promise.allSettled([...running].map((child) => child.stop())).then(() => {
    stopping = undefined;
  });
  return stopping;
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  const again = stopping !== undefined;
  if (again) for (const child of running) child.signalNow();
  const dieBySignal = () => {
    uninstall();
    // With no listener left the default action applies: the process ends the
    // way it would have without us (exit status 128 + signal number).
    process.kill(process.pid, signal);
  };
  if (again) dieBySignal();
  else void stopAllChildren().finally(dieBySignal);
}

function onExit(): void {
  for (const child of running) child.signalNow();
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) process.on(signal, onSignal);
  // 'exit' also runs after an uncaught exception or unhandled rejection.
  process.on('exit', onExit);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const signal of SIGNALS) process.off(signal, onSignal);
  process.off('exit', onExit);
}
