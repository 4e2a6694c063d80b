// The confirmation before Rotate Secret: says what happens to the old secret.
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';

export function RotateSecretDialog({
  activity,
  onConfirm,
  onCancel,
  busy,
}: {
  activity: string;
  onConfirm(): void;
  onCancel(): void;
  busy: boolean;
}) {
  const body = (
    <p>
      A new secret is generated for <code>{activity || 'this flow'}</code>, and{' '}
      <strong>the old secret stops working at once</strong>: callers that still send it get 401 Unauthorized until they
      use the new one.
    </p>
  );
  return (
    <ConfirmDialog
      confirmation={{ title: 'Rotate the secret?', body, action: 'Rotate Secret' }}
      busy={busy}
      onConfirm={onConfirm}
      onCancel={onCancel}
    />
  );
}
