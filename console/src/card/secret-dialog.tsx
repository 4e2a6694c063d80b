// "The plaintext is shown once in a dialog" (spec §2.3): the secret a flow got
// when it was created or rotated, with a copy button. The page holds it only
// while the dialog is open; closing it (Done) drops it — the engine keeps only
// its SHA-256 hash, so nobody can show it again.
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { ModalDialog } from '../ui/modal-dialog.tsx';

type Reveal = (secret: string, what: string) => void;

const RevealContext = createContext<Reveal | undefined>(undefined);

/** Above the routes: the dialog outlives the card that asked for it (a new flow's card gives way to the saved flow's). */
export function SecretRevealProvider({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState<{ secret: string; what: string }>();
  const reveal = useCallback<Reveal>((secret, what) => setShown({ secret, what }), []);
  return (
    <RevealContext.Provider value={reveal}>
      {children}
      {shown ? <SecretDialog secret={shown.secret} what={shown.what} onDone={() => setShown(undefined)} /> : null}
    </RevealContext.Provider>
  );
}

export function useRevealSecret(): Reveal {
  const reveal = useContext(RevealContext);
  if (!reveal) throw new Error('useRevealSecret outside SecretRevealProvider');
  return reveal;
}

function SecretDialog({ secret, what, onDone }: { secret: string; what: string; onDone(): void }) {
  const [copied, setCopied] = useState<string>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('This browser did not let the page copy: select the secret and copy it yourself.');
    }
  };
  return (
    <ModalDialog title="Webhook secret" onClose={onDone}>
      <p>{what}</p>
      <p className="secret-value">
        <code>{secret}</code>
      </p>
      <p>
        <strong>Copy it now: it is shown this once and never again.</strong> flowhook keeps only its SHA-256 hash. Callers send it as <code>secret</code> in the body of every call.
      </p>
      <p role="status" className="muted">
        {copied}
      </p>
      <div className="dialog-actions">
        <button type="button" className="secondary" data-autofocus onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </ModalDialog>
  );
}
