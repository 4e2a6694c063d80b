// Two versions' YAML side by side, changes marked (CodeMirror's merge view),
// read-only. Loaded only when a comparison is shown.
import { useEffect, useRef } from 'react';
import { MergeView } from '@codemirror/merge';
import { yaml } from '@codemirror/lang-yaml';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { EditorView, lineNumbers } from '@codemirror/view';
import { CSP_NONCE } from '../ui/csp-nonce.ts';

export default function VersionDiff({
  left,
  right,
  leftLabel,
  rightLabel,
}: {
  left: string;
  right: string;
  leftLabel: string;
  rightLabel: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const side = (doc: string, label: string) => ({
      doc,
      extensions: [
        EditorView.cspNonce.of(CSP_NONCE),
        lineNumbers(),
        yaml(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        EditorState.readOnly.of(true),
        EditorView.editable.of(false),
        EditorView.contentAttributes.of({ 'aria-label': `${label} (YAML, read-only)` }),
      ],
    });
    const view = new MergeView({
      a: side(left, leftLabel),
      b: side(right, rightLabel),
      parent: host.current!,
      collapseUnchanged: { margin: 3, minSize: 6 },
    });
    return () => view.destroy();
  }, [left, right, leftLabel, rightLabel]);
  return (
    <figure className="diff">
      <figcaption>
        {leftLabel} (left) and {rightLabel} (right); changed lines are marked, unchanged stretches folded.
      </figcaption>
      <div ref={host} />
    </figure>
  );
}
