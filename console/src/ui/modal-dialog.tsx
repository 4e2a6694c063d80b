// A modal dialog on the native <dialog> element: showModal() traps focus in
// it, Escape closes it, and the browser's top layer puts it above the page.
// It renders outside the app's root, and while it is open the root is inert
// and hidden from assistive technology, so nothing behind it can be reached —
// by keyboard, pointer or screen reader. Focus goes back to where it was.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

export interface ModalDialogProps {
  title: string;
  /** Called when the dialog is dismissed (Escape); its own buttons close it too. Focus starts on the element marked data-autofocus. */
  onClose(): void;
  children: ReactNode;
}

/** Dialogs open now: the page behind stays inert until the last one closes. */
let openDialogs = 0;

export function ModalDialog({ title, onClose, children }: ModalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    const root = document.getElementById('root');
    openDialogs++;
    root?.setAttribute('aria-hidden', 'true');
    root?.setAttribute('inert', '');
    dialog.showModal();
    const autofocus = dialog.querySelector<HTMLElement>('[data-autofocus]');
    autofocus?.focus();
    return () => {
      dialog.close();
      if (--openDialogs > 0) return;
      root?.removeAttribute('aria-hidden');
      root?.removeAttribute('inert');
      // The element that opened the dialog, or (when it is gone) the page's main region.
      if (opener?.isConnected) opener.focus();
      else document.getElementById('content')?.focus();
    };
  }, []);
  return createPortal(
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      className="modal"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>,
    document.body,
  );
}
