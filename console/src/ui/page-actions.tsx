// What an admin page does when a person acts: one action at a time, its
// outcome said in words (a status line when done, an alert with the engine's
// own reason when refused — a viewer's click included), a question first for
// what cannot be undone, and a secret the answer carries shown once. After
// every action what the page's actions change is read again (the page names
// it: rpc/read-again.ts): what is shown is what the engine has, never what the
// page guessed.
import { useRef, useState, type ReactNode } from 'react';
import { useReadAgain, type Reads } from '../rpc/read-again.ts';
import { messageOf } from '../rpc/transport.ts';
import { useSession } from '../session/session.tsx';
import { ConfirmDialog, type Confirmation } from './confirm-dialog.tsx';
import { ShownOnceDialog, type ShownOnce } from './shown-once-dialog.tsx';

/** An action's result: the sentence for the status line, and a secret to show once when it gave one. */
export interface Outcome {
  done: string;
  reveal?: ShownOnce;
  /**
   * The action ended the person's own session (they rotated the token they
   * signed in with): they are signed out only once the shown-once dialog is
   * closed — the new token must be copied first.
   */
  endsSession?: boolean;
}

export interface PageActions {
  /** An action runs: for a busy look; buttons stay enabled (a second click is ignored). */
  busy: boolean;
  /** Runs the action now; true when it succeeded. */
  run(action: () => Promise<Outcome>): Promise<boolean>;
  /** Asks first; runs on confirmation. */
  confirm(confirmation: Confirmation & { run(): Promise<Outcome> }): void;
  /** The status line, the alert and the dialogs: render once on the page. */
  view: ReactNode;
}

/** `changes`: the reads the page's actions make stale, read again after each one, refused or done. */
export function usePageActions(changes: readonly Reads[]): PageActions {
  const readAgain = useReadAgain();
  const { signOut } = useSession();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');
  const [problem, setProblem] = useState('');
  const [asking, setAsking] = useState<Confirmation & { run(): Promise<Outcome> }>();
  const [shown, setShown] = useState<ShownOnce & { endsSession?: boolean }>();

  // A second click while one action runs does nothing (buttons stay enabled, so focus never falls off one).
  const running = useRef(false);
  const run = async (action: () => Promise<Outcome>): Promise<boolean> => {
    if (running.current) return false;
    running.current = true;
    setBusy(true);
    setDone('');
    setProblem('');
    try {
      const outcome = await action();
      // Said once the lists show it: "done" never stands next to the state before.
      if (!(outcome.endsSession && outcome.reveal)) await refresh();
      setDone(outcome.done);
      if (outcome.reveal) setShown({ ...outcome.reveal, endsSession: outcome.endsSession });
      return true;
    } catch (error) {
      await refresh();
      setProblem(messageOf(error));
      return false;
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  const refresh = () => readAgain(changes);

  const view = (
    <>
      <div role="status" aria-live="polite" className="notice done">
        {done}
      </div>
      <div role="alert" className="notice problem">
        {problem}
      </div>
      {asking ? (
        <ConfirmDialog
          confirmation={asking}
          busy={busy}
          onCancel={() => setAsking(undefined)}
          onConfirm={() => {
            const confirmed = asking;
            setAsking(undefined);
            void run(() => confirmed.run());
          }}
        />
      ) : null}
      {shown ? (
        <ShownOnceDialog
          shown={shown}
          onDone={() => {
            setShown(undefined);
            // Their token is rotated: sign out now rather than wait for a read to find the session gone (a read may still pass while every engine learns of the rotation).
            if (shown.endsSession) void signOut().catch(() => refresh());
          }}
        />
      ) : null}
    </>
  );
  return { busy, run, confirm: setAsking, view };
}
