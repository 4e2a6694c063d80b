// Printing for the admin commands. Human output is aligned plain text;
// `--json` output is exactly one JSON document on stdout, so scripts can pipe
// it to `jq` without filtering.

/** Where a command writes; tests pass a collector instead of the process streams. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

export function printJson(io: CliIo, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLines(io: CliIo, lines: string[]): void {
  io.out(`${lines.join('\n')}\n`);
}

/** Columns padded to their widest cell; the last column is not padded, so no trailing blanks. */
export function table(headers: string[], rows: string[][]): string[] {
  const all = [headers, ...rows];
  const widths = headers.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** `label  value` lines with the labels aligned; rows whose value is undefined are left out. */
export function card(rows: [label: string, value: string | undefined][], indent = '  '): string[] {
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  const width = Math.max(0, ...shown.map(([label]) => label.length));
  return shown.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`.trimEnd());
}

export function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

/** The emphasised block for a credential that the engine returns once and never again. */
export function shownOnce(what: string, value: string): string[] {
  return [`  ${what} — shown once, store it now (it cannot be displayed again):`, `    ${value}`];
}

export { shellArg, shellQuote } from '../../common/shell-words.ts';
