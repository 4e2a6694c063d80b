// The confirmation before Rotate Secret: says what happens to the old secret.
import { ModalDialog } from '../ui/modal-dialog.tsx';

export function RotateSecretDialog({ activity, onConfirm, onCancel, busy }: { activity: string; onConfirm(): void; onCancel(): void; busy: boolean }) {
  return (
    <ModalDialog title="Rotate the secret?" onClose={onCancel}>
      <p>
        A new secret is generated for <code>{activity || 'this flow'}</code>, and <strong>the old secret stops working at once</strong>: callers that still send it get 401
        Unauthorized until they use the new one.
      </p>
      <div className="dialog-actions">
        <button type="button" className="secondary" data-autofocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          Rotate Secret
        </button>
      </div>
    </ModalDialog>
  );
}
