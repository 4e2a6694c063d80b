// Splits a template string into literal text, SmartFormulas `${ expr }` and
// SmartFields `{{Path}}`. Only the template text is ever parsed: values that
// come out of placeholders are data and are never looked at again, even when
// a payload string happens to contain `${` or `{{`.
//
// Escapes: `\${` is a literal `${` and `\{{` is a literal `{{`. A backslash
// anywhere else is an ordinary character. (A backslash right before a real
// placeholder can be written as a formula: `${"\\"}{{Variables.dir}}`.)

import { findFormulaEnd } from './formula-scanner.ts';
import { FormulaError } from './formula-error.ts';
import { parseFieldPath } from './smart-field-path.ts';

/** Characters that may begin an escape or a placeholder. */
const SPECIAL = /[\\${]/g;

export type TemplatePart =
  { kind: 'text'; text: string } | { kind: 'formula'; expression: string } | { kind: 'field'; path: string };

/** A placeholder that cannot be used, with its source as written. */
export interface TemplateProblem {
  source: string;
  reason: string;
}

/** Parts of a template; throws a FormulaError naming the first bad placeholder. */
export function parseTemplate(text: string): TemplatePart[] {
  const { parts, problems } = scanTemplate(text);
  const first = problems[0];
  if (first) throw new FormulaError(first.source, first.reason);
  return parts;
}

/** The source of a formula part as written in the template, for messages. */
export function formulaSource(expression: string): string {
  return '${' + expression + '}';
}

/**
 * Parts and every problem found. Scanning goes on after a bad placeholder
 * so publish-time validation can report them all, except after an
 * unterminated one, where the rest of the text has no reliable meaning.
 */
export function scanTemplate(text: string): { parts: TemplatePart[]; problems: TemplateProblem[] } {
  const parts: TemplatePart[] = [];
  const problems: TemplateProblem[] = [];
  let literal = '';
  const flushLiteral = () => {
    if (literal !== '') parts.push({ kind: 'text', text: literal });
    literal = '';
  };

  let i = 0;
  while (i < text.length) {
    if (text.startsWith('\\${', i) || text.startsWith('\\{{', i)) {
      literal += text.slice(i + 1, i + 3);
      i += 3;
    } else if (text.startsWith('${', i)) {
      const end = findFormulaEnd(text, i + 2);
      if (typeof end === 'string') {
        problems.push({ source: text.slice(i), reason: end });
        break;
      }
      const expression = text.slice(i + 2, end);
      if (expression.trim() === '') problems.push({ source: formulaSource(expression), reason: 'empty formula' });
      flushLiteral();
      parts.push({ kind: 'formula', expression });
      i = end + 1;
    } else if (text.startsWith('{{', i)) {
      const end = text.indexOf('}}', i + 2);
      if (end < 0) {
        problems.push({ source: text.slice(i), reason: 'unterminated "{{" (no matching "}}")' });
        break;
      }
      const source = text.slice(i, end + 2);
      const path = text.slice(i + 2, end).trim();
      if (path === '') problems.push({ source, reason: 'empty field' });
      else if (!parseFieldPath(path)) {
        problems.push({
          source,
          reason: `"${path}" is not a field path (use names joined by dots, e.g. Trigger.Payload.order.id or Steps.call.items[0])`,
        });
      }
      flushLiteral();
      parts.push({ kind: 'field', path });
      i = end + 2;
    } else {
      // Copy plain text up to the next character that could start something.
      SPECIAL.lastIndex = i + 1;
      const next = SPECIAL.exec(text)?.index ?? text.length;
      literal += text.slice(i, next);
      i = next;
    }
  }
  flushLiteral();
  return { parts, problems };
}
