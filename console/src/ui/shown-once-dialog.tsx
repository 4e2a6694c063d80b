// "Shown once": a secret the engine gave back this one time (a flow's webhook
// secret, a service user's access key, a service account's token, a generated
// hook secret), in a dialog with a copy button. The page holds it only while
// the dialog is open; closing it (Done) drops it — the engine keeps only a
// hash or the sealed value, so nobody can show it again.
import { useState, type ReactNode } from 'react';
import { ModalDialog } from './modal-dialog.tsx';

export interface ShownOnce {
  /** The dialog's title, e.g. "Access key". */
  title: string;
  /** What it is for: "The access key of service user shop". */
  what: ReactNode;
  value: string;
  /** How it is used and what flowhook keeps of it. */
  use: ReactNode;
}

export function ShownOnceDialog({ shown, onDone }: { shown: ShownOnce; onDone(): void }) {
  const [copied, setCopied] = useState<string>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(shown.value);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('This browser did not let the page copy: select it and copy it yourself.');
    }
  };
  return (
    <ModalDialog title={shown.title} onClose={onDone}>
      <p>{shown.what}</p>
      <p className="secret-value">
        <code>{shown.value}</code>
      </p>
      <p>
        <strong>Copy it now: it is shown this once and never again.</strong> {shown.use}
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
