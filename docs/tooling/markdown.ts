// The few Markdown shapes the generated references are made of, written the
// same way everywhere: pipe tables, code spans, and prose squeezed onto one
// line (a table cell holds no line break).

/** A pipe table; every cell is escaped (see `cell`). */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(headers), `|${headers.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

/** Text for one table cell: a pipe would end it, a line break would end the row. */
export function cell(text: string): string {
  return plainText(oneLine(text)).replaceAll('|', '\\|');
}

/**
 * Prose written for people (a comment, a help text) made safe as Markdown: outside code spans, a
 * `<` is escaped, or a code host would take `<company>` for an HTML tag and drop it.
 */
export function plainText(text: string): string {
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replaceAll('<', '&lt;')))
    .join('');
}

/** Paragraphs joined into one line, for a cell or a list item. */
export function oneLine(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' ').trim())
    .filter((paragraph) => paragraph !== '')
    .join(' ');
}

/** A code span that survives backticks inside it. */
export function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A fenced code block. */
export function fenced(language: string, text: string): string {
  return `\`\`\`${language}\n${text.endsWith('\n') ? text : `${text}\n`}\`\`\``;
}

/** A sentence ends with a full stop unless it ends in punctuation already. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
