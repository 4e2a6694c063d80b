// The buttons of a row on an admin page: one that acts at once (enable,
// disable), one that asks first (delete, a new key, a rotation). Both hand
// their work to the page's actions (page-actions.tsx), which say the outcome.
import type { ReactNode } from 'react';
import type { Outcome, PageActions } from './page-actions.tsx';

interface ActionButtonProps {
  actions: PageActions;
  children: ReactNode;
  run(): Promise<Outcome>;
  danger?: boolean;
}

export function ActionButton({ actions, children, run, danger = false }: ActionButtonProps) {
  return (
    <button type="button" className={danger ? 'danger small' : 'secondary small'} onClick={() => void actions.run(run)}>
      {children}
    </button>
  );
}

/** Asks `title` with `body` first; the dialog's button says `action`. */
export function ConfirmButton({ title, body, action, ...button }: ActionButtonProps & { title: string; body: ReactNode; action: string }) {
  return (
    <button
      type="button"
      className={button.danger ? 'danger small' : 'secondary small'}
      onClick={() => button.actions.confirm({ title, body: <p>{body}</p>, action, run: button.run })}
    >
      {button.children}
    </button>
  );
}
