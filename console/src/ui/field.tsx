// A labelled form field with its hint and its problem: the label names the
// control (its accessible name is exactly the label's text), a problem marks
// it invalid — for assistive technology (aria-invalid, aria-describedby) and
// for the browser's own validity — and is shown right under it.
import { useEffect, useId, useRef, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

interface FieldFrame {
  label: string;
  hint?: ReactNode;
  problem?: string;
  /** Set when the problem is only a warning: shown, but the field stays valid. */
  warning?: string;
}

function useFieldIds(problem: string | undefined, warning: string | undefined, hint: ReactNode) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const problemId = problem || warning ? `${id}-problem` : undefined;
  return { id, hintId, problemId, describedBy: [problemId, hintId].filter(Boolean).join(' ') || undefined };
}

/** The browser's own validity follows the problem, so `:invalid` and form validation agree with what is shown. */
function useValidity<T extends HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(problem: string | undefined) {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.setCustomValidity(problem ?? ''), [problem]);
  return ref;
}

function Below({ hint, hintId, problem, warning, problemId }: { hint?: ReactNode; hintId?: string; problem?: string; warning?: string; problemId?: string }) {
  return (
    <>
      {problem ? (
        <p id={problemId} className="field-problem">
          {problem}
        </p>
      ) : warning ? (
        <p id={problemId} className="field-warning">
          {warning}
        </p>
      ) : null}
      {hint ? (
        <div id={hintId} className="field-hint">
          {hint}
        </div>
      ) : null}
    </>
  );
}

export function TextField({ label, hint, problem, warning, ...input }: FieldFrame & InputHTMLAttributes<HTMLInputElement>) {
  const ids = useFieldIds(problem, warning, hint);
  const ref = useValidity<HTMLInputElement>(problem);
  return (
    <div className="field">
      <label htmlFor={ids.id}>{label}</label>
      <input ref={ref} id={ids.id} aria-invalid={problem ? true : undefined} aria-describedby={ids.describedBy} {...input} />
      <Below hint={hint} hintId={ids.hintId} problem={problem} warning={warning} problemId={ids.problemId} />
    </div>
  );
}

export function TextAreaField({ label, hint, problem, warning, ...textarea }: FieldFrame & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const ids = useFieldIds(problem, warning, hint);
  const ref = useValidity<HTMLTextAreaElement>(problem);
  return (
    <div className="field">
      <label htmlFor={ids.id}>{label}</label>
      <textarea ref={ref} id={ids.id} aria-invalid={problem ? true : undefined} aria-describedby={ids.describedBy} {...textarea} />
      <Below hint={hint} hintId={ids.hintId} problem={problem} warning={warning} problemId={ids.problemId} />
    </div>
  );
}

export function SelectField({ label, hint, problem, warning, children, ...select }: FieldFrame & SelectHTMLAttributes<HTMLSelectElement>) {
  const ids = useFieldIds(problem, warning, hint);
  const ref = useValidity<HTMLSelectElement>(problem);
  return (
    <div className="field">
      <label htmlFor={ids.id}>{label}</label>
      <select ref={ref} id={ids.id} aria-invalid={problem ? true : undefined} aria-describedby={ids.describedBy} {...select}>
        {children}
      </select>
      <Below hint={hint} hintId={ids.hintId} problem={problem} warning={warning} problemId={ids.problemId} />
    </div>
  );
}

export function CheckboxField({ label, hint, ...input }: { label: string; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field field-checkbox">
      <input id={id} type="checkbox" aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
