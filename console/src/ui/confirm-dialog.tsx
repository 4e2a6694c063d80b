// The question before an action that cannot be undone (delete, a new key, a
// rotation): says what happens, Cancel has the focus, the action is named on
// its button.
import type { ReactNode } from 'react';
import { ModalDialog } from './modal-dialog.tsx';

export interface Confirmation {
  title: string;
  body: ReactNode;
  /** The button's text, e.g. "Delete service user". */
  action: string;
}

export function ConfirmDialog({
  confirmation,
  busy,
  onConfirm,
  onCancel,
}: {
  confirmation: Confirmation;
  busy: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  return (
    <ModalDialog title={confirmation.title} onClose={onCancel}>
      <div>{confirmation.body}</div>
      <div className="dialog-actions">
        <button type="button" className="secondary" data-autofocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          {confirmation.action}
        </button>
      </div>
    </ModalDialog>
  );
}
