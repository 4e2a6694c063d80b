// Printing for the admin commands. Human output is aligned plain text;
// `--json` output is exactly one JSON document on stdout, so scripts can pipe
// it to `jq` without filtering.
import { toJson, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';

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

/** How a response goes to JSON: implicit defaults are printed too, so `jq .created` is false rather than null. */
export const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

/** A command's answer: with --json the response as its one JSON document, otherwise the lines a person reads. */
export function printResponse<S extends DescMessage>(
  io: CliIo,
  json: boolean,
  schema: S,
  response: MessageShape<S>,
  lines: () => string[],
): void {
  if (json) printJson(io, toJson(schema, response, JSON_OPTIONS));
  else printLines(io, lines());
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

/** A list command's lines: the table of the rows, or when there are none the line `none` (what to do instead). */
export function tableOr(none: string, headers: string[], rows: string[][]): string[] {
  return rows.length === 0 ? [none] : table(headers, rows);
}

/** `label  value` lines with the labels aligned; rows whose value is undefined are left out. */
export function card(rows: [label: string, value: string | undefined][], indent = '  '): string[] {
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  const width = Math.max(0, ...shown.map(([label]) => label.length));
  return shown.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`.trimEnd());
}

/** A timestamp as ISO 8601 (UTC); empty when it is not set. */
export function timeText(timestamp: Timestamp | undefined): string {
  return timestamp ? timestampDate(timestamp).toISOString() : '';
}

export function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

/** The emphasised block for a credential that the engine returns once and never again. */
export function shownOnce(what: string, value: string): string[] {
  return [`  ${what} — shown once, store it now (it cannot be displayed again):`, `    ${value}`];
}

export { shellArg, shellQuote } from '../../common/shell-words.ts';
