// A labelled form field with its hint and its problem: the label names the
// control (its accessible name is exactly the label's text), a problem marks
// it invalid — for assistive technology (aria-invalid, aria-describedby) and
// for the browser's own validity — and is shown right under it.
import {
  useCallback,
  useEffect,
  useId,
  useRef,
  type ChangeEvent,
  type ChangeEventHandler,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

interface FieldFrame {
  label: string;
  hint?: ReactNode;
  problem?: string;
  /** Set when the problem is only a warning: shown, but the field stays valid. */
  warning?: string;
}

/** A control the browser checks the validity of. */
type Validated = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** What the frame gives its control: the id the label names, the validity and what describes it. */
interface ControlProps {
  id: string;
  ref(element: Validated | null): void;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** The frame every text-like field shares: its label, its control, then its problem (or warning) and its hint. */
function Field({
  label,
  hint,
  problem,
  warning,
  children,
}: FieldFrame & { children(control: ControlProps): ReactNode }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const problemId = problem || warning ? `${id}-problem` : undefined;
  // The browser's own validity follows the problem, so `:invalid` and form validation agree with what is shown.
  const element = useRef<Validated>(null);
  const ref = useCallback((control: Validated | null) => {
    element.current = control;
  }, []);
  useEffect(() => element.current?.setCustomValidity(problem ?? ''), [problem]);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ref,
        'aria-invalid': problem ? true : undefined,
        'aria-describedby': [problemId, hintId].filter(Boolean).join(' ') || undefined,
      })}
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
    </div>
  );
}

/** What every field takes besides its control's own attributes: `onValue` hears the control's new text (or `onChange` its event). */
type FieldProps<Attributes> = FieldFrame & Attributes & { onValue?(value: string): void };

/** A field's props split into its frame's and its control's; `onValue` becomes the control's change handler. */
function framed<Element extends Validated, Attributes extends { onChange?: ChangeEventHandler<Element> }>(
  props: FieldProps<Attributes>,
) {
  const { label, hint, problem, warning, onValue, ...control } = props;
  const onChange = onValue ? (event: ChangeEvent<Element>) => onValue(event.target.value) : control.onChange;
  return { frame: { label, hint, problem, warning }, control: { ...control, onChange } };
}

export function TextField(props: FieldProps<InputHTMLAttributes<HTMLInputElement>>) {
  const { frame, control } = framed(props);
  return <Field {...frame}>{(own) => <input {...own} {...control} />}</Field>;
}

export function TextAreaField(props: FieldProps<TextareaHTMLAttributes<HTMLTextAreaElement>>) {
  const { frame, control } = framed(props);
  return <Field {...frame}>{(own) => <textarea {...own} {...control} />}</Field>;
}

export function SelectField(props: FieldProps<SelectHTMLAttributes<HTMLSelectElement>>) {
  const { frame, control } = framed(props);
  return <Field {...frame}>{(own) => <select {...own} {...control} />}</Field>;
}

/** `onChecked` hears whether the box is now ticked (or `onChange` its event). */
export function CheckboxField({
  label,
  hint,
  onChecked,
  ...input
}: { label: string; hint?: ReactNode; onChecked?(checked: boolean): void } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const onChange = onChecked
    ? (event: ChangeEvent<HTMLInputElement>) => onChecked(event.target.checked)
    : input.onChange;
  return (
    <div className="field field-checkbox">
      <input
        id={id}
        type="checkbox"
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...input}
        onChange={onChange}
      />
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** A select's options for names (companies, flows): each name is its own value. */
export function NameOptions({ names }: { names: readonly string[] }) {
  return names.map((name) => (
    <option key={name} value={name}>
      {name}
    </option>
  ));
}
