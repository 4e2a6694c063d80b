// The whole flow as YAML in a real code editor (CodeMirror 6): highlighted,
// checked as it is typed — YAML syntax, the flow JSON Schema, and the
// engine's publish problems (CheckFlow) at their lines — and completed from
// the schema (Ctrl-Space, or as a key is typed). Edits that read as a flow
// file go back to the card at once; the card's fields and this text are one
// flow. Loaded only when the tab is opened.
import { useEffect, useId, useRef, useState } from 'react';
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import {
  bracketMatching,
  defaultHighlightStyle,
  foldGutter,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { linter, lintGutter, lintKeymap, type Diagnostic } from '@codemirror/lint';
import { EditorState, StateEffect } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import type { FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { ShownProblem } from '../card/problems-list.tsx';
import { FLOW_SCHEMA, schemaProblems } from './flow-schema-check.ts';
import { schemaCompletion } from './flow-schema-completion.ts';
import { rangeOf, readYaml, toYaml, type PathSegment, type TextProblem } from './flow-yaml.ts';
import { CSP_NONCE } from '../ui/csp-nonce.ts';

export interface YamlTabProps {
  draft: FlowJson;
  onChange(flow: FlowJson): void;
  /** The engine's and the card's problems, by field path. */
  problems: readonly (ShownProblem & { segments: PathSegment[] })[];
  /** A field to show (from the card's problem list): the cursor goes to its line. */
  reveal?: PathSegment[];
  readOnly: boolean;
}

/** Tells the linter the engine's problems changed while the text did not. */
const problemsChanged = StateEffect.define<null>();

export default function YamlTab({ draft, onChange, problems, reveal, readOnly }: YamlTabProps) {
  const labelId = useId();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(undefined);
  const problemsRef = useRef(problems);
  const onChangeRef = useRef(onChange);
  const [summary, setSummary] = useState('');
  const [listed, setListed] = useState<{ line: number; from: number; message: string; severity: string }[]>([]);
  problemsRef.current = problems;
  onChangeRef.current = onChange;

  useEffect(() => {
    const diagnostics = (editor: EditorView): Diagnostic[] => {
      const text = editor.state.doc.toString();
      const read = readYaml(text);
      const found: TextProblem[] = [...read.problems];
      const schema = read.data === undefined ? [] : schemaProblems(read.data);
      // The schema says where a document does not fit; protobuf's own message (not placed) only when it says nothing.
      if (schema.length > 0)
        found.splice(
          0,
          found.length,
          ...read.problems.filter((problem) => !problem.message.startsWith('Not a flow file')),
        );
      for (const problem of schema)
        found.push({
          ...placed(read.doc, problem.path, text),
          message: `${pathText(problem.path)}: ${problem.message}`,
          severity: 'error',
        });
      if (read.flow) {
        for (const problem of problemsRef.current) {
          found.push({
            ...placed(read.doc, problem.segments, text),
            message: problem.fieldPath ? `${problem.fieldPath}: ${problem.message}` : problem.message,
            severity: problem.severity,
          });
        }
      }
      const errors = found.filter((problem) => problem.severity === 'error').length;
      setSummary(
        found.length === 0
          ? 'No problems.'
          : `${errors} error${errors === 1 ? '' : 's'}, ${found.length - errors} warning${found.length - errors === 1 ? '' : 's'}.`,
      );
      const at = (offset: number) => editor.state.doc.lineAt(Math.min(offset, text.length)).number;
      setListed(
        found
          .map((problem) => ({
            line: at(problem.from),
            from: problem.from,
            message: problem.message,
            severity: problem.severity,
          }))
          .sort((a, b) => a.line - b.line),
      );
      return found.map((problem) => ({
        from: Math.min(problem.from, text.length),
        to: Math.min(problem.to, text.length),
        severity: problem.severity,
        message: problem.message,
      }));
    };
    const state = EditorState.create({
      doc: toYaml(draft),
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        foldGutter(),
        lintGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        yaml(),
        autocompletion({ override: [schemaCompletion(FLOW_SCHEMA)] }),
        linter(diagnostics, {
          delay: 300,
          needsRefresh: (update) =>
            update.transactions.some((transaction) => transaction.effects.some((effect) => effect.is(problemsChanged))),
        }),
        // Tab is left to the browser (it moves focus on): the editor never traps the keyboard.
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, ...lintKeymap]),
        EditorState.readOnly.of(readOnly),
        EditorView.cspNonce.of(CSP_NONCE),
        EditorView.contentAttributes.of({ 'aria-labelledby': labelId, 'aria-describedby': `${labelId}-hint` }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          const read = readYaml(update.state.doc.toString());
          if (read.flow) onChangeRef.current(read.flow);
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current! });
    return () => view.current?.destroy();
    // The editor is made once per opening of the tab; the draft changes through it from then on.
  }, []);

  // New problems from the engine: mark them now, not at the next keystroke.
  useEffect(() => {
    view.current?.dispatch({ effects: problemsChanged.of(null) });
  }, [problems]);

  useEffect(() => {
    const editor = view.current;
    if (!editor || !reveal) return;
    const read = readYaml(editor.state.doc.toString());
    const range = rangeOf(read.doc, reveal);
    if (range) editor.dispatch({ selection: { anchor: range.from, head: range.to }, scrollIntoView: true });
    editor.focus();
  }, [reveal]);

  return (
    <div className="yaml-tab">
      <p id={labelId} className="editor-label">
        Flow YAML
      </p>
      <p id={`${labelId}-hint`} className="field-hint">
        The flow file the CLI reads (<code>flowhook flow apply</code>). Completion: Ctrl-Space. Problems are marked at
        their line and listed below the editor; Tab moves on to the next control.
      </p>
      <div ref={host} className="yaml-editor" />
      <p role="status" className="muted">
        {summary}
      </p>
      {listed.length > 0 ? (
        <ul aria-label="Problems in the YAML" className="yaml-problems">
          {listed.map((problem) => (
            <li key={`${problem.from}:${problem.message}`} className={problem.severity}>
              <button
                type="button"
                className="link"
                onClick={() => {
                  view.current?.dispatch({ selection: { anchor: problem.from }, scrollIntoView: true });
                  view.current?.focus();
                }}
              >
                Line {problem.line}
              </button>
              : {problem.severity === 'warning' ? 'warning: ' : ''}
              {problem.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function placed(
  doc: Parameters<typeof rangeOf>[0],
  path: readonly PathSegment[],
  text: string,
): { from: number; to: number } {
  return rangeOf(doc, path) ?? { from: 0, to: Math.min(1, text.length) };
}

function pathText(path: readonly PathSegment[]): string {
  return (
    path
      .map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
      .join('') || '(the flow)'
  );
}
