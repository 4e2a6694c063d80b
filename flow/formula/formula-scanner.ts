// Finds where a `${ ... }` SmartFormula ends. The expression is JSONata, so a
// plain "first `}`" search is wrong: object constructors and blocks nest
// braces, and string literals, `backtick names`, /* comments */ and /regex/
// literals may contain braces that do not count. This mirrors just enough of
// the JSONata tokenizer to skip those; the real parse happens when the
// expression is compiled.

/** Characters that end an operand; a `/` after one of them is division, otherwise a regex starts (as in JSONata's lexer). */
const OPERAND_END = /[\p{L}\p{N}_$)\]}"'`]/u;

/**
 * Index of the `}` closing a formula whose body starts at `from` (just after
 * `${`), or a message explaining why there is none.
 */
export function findFormulaEnd(text: string, from: number): number | string {
  let depth = 0;
  let lastSignificant = '';
  let i = from;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'") {
      const end = skipQuoted(text, i);
      if (end < 0) return 'unterminated string literal in formula';
      i = end;
    } else if (ch === '`') {
      // JSONata backtick names have no escapes: they end at the next backtick.
      const end = text.indexOf('`', i + 1);
      if (end < 0) return 'unterminated `name` in formula';
      i = end + 1;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return 'unterminated /* comment */ in formula';
      i = end + 2;
      continue; // a comment is not significant for the regex/division decision
    } else if (ch === '/' && !OPERAND_END.test(lastSignificant)) {
      const end = skipRegex(text, i + 1);
      if (end < 0) return 'unterminated /regex/ in formula';
      i = end;
    } else if (ch === '{') {
      depth++;
      i++;
    } else if (ch === '}') {
      if (depth === 0) return i;
      depth--;
      i++;
    } else {
      i++;
    }
    if (!/\s/.test(ch)) lastSignificant = text[i - 1]!;
  }
  return 'unterminated "${" (no matching "}")';
}

/** Index just after the closing quote of a string literal starting at `start`, or -1. */
function skipQuoted(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\')
      i++; // the escaped character can be the quote itself
    else if (text[i] === quote) return i + 1;
  }
  return -1;
}

/**
 * Index just after a regex literal whose pattern starts at `start` (after the
 * opening `/`), flags included, or -1. Like JSONata, a `/` inside unescaped
 * brackets does not close the regex.
 */
function skipRegex(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\') {
      i++;
    } else if (ch === '(' || ch === '[' || ch === '{') {
      depth++;
    } else if (ch === ')' || ch === ']' || ch === '}') {
      depth--;
    } else if (ch === '/' && depth === 0) {
      let end = i + 1;
      while (text[end] === 'i' || text[end] === 'm') end++;
      return end;
    }
  }
  return -1;
}
