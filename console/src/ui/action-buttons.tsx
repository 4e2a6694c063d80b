// The controls that hand their work to the page's actions (page-actions.tsx),
// which say the outcome: the buttons of a row on an admin page — one that acts
// at once (enable, disable), one that asks first (delete, a new key, a
// rotation) — and a form whose submit is an action (create, set, grant).
import type { FormHTMLAttributes, ReactNode, Ref } from 'react';
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
export function ConfirmButton({
  title,
  body,
  action,
  ...button
}: ActionButtonProps & { title: string; body: ReactNode; action: string }) {
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

interface ActionFormProps extends Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> {
  actions: PageActions;
  run(): Promise<Outcome>;
  /** Once the action succeeded: clears what must not be submitted twice (a new account's name). */
  onDone?(): void;
  ref?: Ref<HTMLFormElement>;
}

/** Submitting runs the action: the page stays, the outcome is said by the page's actions. */
export function ActionForm({ actions, run, onDone, ...form }: ActionFormProps) {
  return (
    <form
      {...form}
      onSubmit={(event) => {
        event.preventDefault();
        void actions.run(run).then((done) => done && onDone?.());
      }}
    />
  );
}

/** A row's own small button that opens something about the row (its permission sets, a form to replace it). */
export function RowButton({ label, onClick, children }: { label?: string; onClick(): void; children: ReactNode }) {
  return (
    <button type="button" className="secondary small" aria-label={label} onClick={onClick}>
      {children}
    </button>
  );
}

/** Deletes a row after asking "Delete the service user?": `what` names the kind of row, `done` says it is gone. */
export function DeleteButton({
  what,
  remove,
  done,
  ...button
}: Omit<ActionButtonProps, 'run' | 'children' | 'danger'> & {
  what: string;
  body: ReactNode;
  remove(): Promise<unknown>;
  done: string;
}) {
  const run = async () => {
    await remove();
    return { done };
  };
  return (
    <ConfirmButton {...button} danger title={`Delete the ${what}?`} action={`Delete ${what}`} run={run}>
      Delete
    </ConfirmButton>
  );
}
