// The refusal reason reference (docs/reference/refusal-reasons.md), from the
// closed set in common/refusal-reasons.ts: each code with the status the
// caller sees, what it means and what to do — the doc comment and `@remedy` tag
// of its entry — grouped by the `// ── … ──` lines that say who decides it. The
// comments are read with the TypeScript compiler, so the code is the only
// place they are written.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { REFUSAL_REASONS } from '../../common/refusal-reasons.ts';
import { code, table } from './markdown.ts';

const SOURCE = new URL('../../common/refusal-reasons.ts', import.meta.url);

interface Reason {
  code: string;
  status: number;
  meaning: string;
  remedy: string;
}

export function renderRefusalReasonsReference(): string {
  const groups = reasonGroups();
  const documented = new Set([...groups.values()].flat().map((reason) => reason.code));
  const missing = Object.keys(REFUSAL_REASONS).filter((reason) => !documented.has(reason));
  if (missing.length > 0) throw new Error(`common/refusal-reasons.ts: no doc comment read for ${missing.join(', ')}`);
  return [...groups]
    .map(([group, reasons]) =>
      [
        `## ${capitalised(group)}`,
        '',
        table(
          ['reason', 'status', 'what it means', 'what to do'],
          reasons.map((reason) => [code(reason.code), String(reason.status), reason.meaning, reason.remedy]),
        ),
      ].join('\n'),
    )
    .join('\n\n');
}

/** The entries of REFUSAL_REASONS in source order, under the group comment before them. */
function reasonGroups(): Map<string, Reason[]> {
  const text = readFileSync(SOURCE, 'utf8');
  const file = ts.createSourceFile(SOURCE.pathname, text, ts.ScriptTarget.Latest, true);
  const groups = new Map<string, Reason[]>();
  let group = 'refusals';
  for (const property of reasonsLiteral(file).properties) {
    if (!ts.isPropertyAssignment(property) || !ts.isNumericLiteral(property.initializer)) continue;
    for (const range of ts.getLeadingCommentRanges(text, property.getFullStart()) ?? []) {
      const heading = /^\/\/\s*──\s*(.*?)\s*──\s*$/.exec(text.slice(range.pos, range.end));
      if (heading) group = heading[1]!;
    }
    const docs = ts.getJSDocCommentsAndTags(property).filter(ts.isJSDoc);
    const meaning = docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '').join(' ');
    const remedy = docs
      .flatMap((doc) => doc.tags ?? [])
      .filter((tag) => tag.tagName.text === 'remedy')
      .map((tag) => ts.getTextOfJSDocComment(tag.comment) ?? '')
      .join(' ');
    const reason = { code: property.name.getText(file), status: Number(property.initializer.text), meaning, remedy };
    groups.set(group, [...(groups.get(group) ?? []), reason]);
  }
  return groups;
}

function reasonsLiteral(file: ts.SourceFile): ts.ObjectLiteralExpression {
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (declaration.name.getText(file) !== 'REFUSAL_REASONS') continue;
      let value = declaration.initializer;
      while (
        value &&
        (ts.isSatisfiesExpression(value) || ts.isAsExpression(value) || ts.isParenthesizedExpression(value))
      )
        value = value.expression;
      if (value && ts.isObjectLiteralExpression(value)) return value;
    }
  }
  throw new Error('common/refusal-reasons.ts: REFUSAL_REASONS is no longer an object literal');
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
