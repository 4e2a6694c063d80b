// The example flow files (examples/**/*.flow.yaml) as the references quote
// them: for each step kind and each verification scheme, the shortest place an
// example uses it, cut from the file with its comments and layout, so the
// reference shows what a validated, tested file really says.
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isSeq, parseDocument, type Node, type YAMLMap } from 'yaml';
import { REPOSITORY_ROOT } from './handbook-pages.ts';
import { code, table } from './markdown.ts';

export interface ExampleFile {
  /** Relative to the repository root. */
  path: string;
  text: string;
}

export interface Snippet {
  path: string;
  /** YAML text, indented from column 0. */
  text: string;
}

export function exampleFlowFiles(): ExampleFile[] {
  return globSync('examples/**/*.flow.yaml', { cwd: REPOSITORY_ROOT })
    .sort()
    .map((path) => ({ path, text: readFileSync(join(REPOSITORY_ROOT, path), 'utf8') }));
}

/** For each step kind (its key in a flow file), the shortest step of that kind in the examples, as a list item. */
export function stepSnippets(files: readonly ExampleFile[] = exampleFlowFiles()): Map<string, Snippet> {
  const found = new Map<string, Snippet>();
  eachStep(files, (kind, _body, snippet) => keep(found, kind, snippet));
  return found;
}

/** The operations a `record` step has (exactly one per step). */
export const RECORD_OPERATIONS = ['get', 'insert', 'modify', 'upsert', 'delete'] as const;

/** For each record operation, the shortest `record` step in the examples that does it. */
export function recordOperationSnippets(files: readonly ExampleFile[] = exampleFlowFiles()): Map<string, Snippet> {
  const found = new Map<string, Snippet>();
  eachStep(files, (kind, body, snippet) => {
    const operation = kind === 'record' && isMap(body) ? RECORD_OPERATIONS.find((name) => body.has(name)) : undefined;
    if (operation) keep(found, operation, snippet);
  });
  return found;
}

/** Every step of the examples, branches included: its kind, its body, and its source as a list item. */
function eachStep(files: readonly ExampleFile[], see: (kind: string, body: unknown, snippet: Snippet) => void): void {
  for (const { path, text } of files) {
    const document = parseDocument(text);
    const visit = (steps: unknown) => {
      if (!isSeq(steps)) return;
      for (const step of steps.items) {
        if (!isMap(step)) continue;
        const kind = keysOf(step).find((key) => key !== 'name');
        if (kind === undefined) continue;
        const body = step.get(kind, true);
        see(kind, body, { path, text: listItem(text, step) });
        if (isMap(body)) for (const branch of ['then', 'else']) visit(body.get(branch, true));
      }
    };
    visit(document.get('steps', true));
  }
}

/** For each verification scheme, the shortest `direct:` of a trigger in the examples that uses it. */
export function directSnippets(files: readonly ExampleFile[] = exampleFlowFiles()): Map<string, Snippet> {
  const found = new Map<string, Snippet>();
  for (const { path, text } of files) {
    const document = parseDocument(text);
    const direct = document.getIn(['trigger', 'webhook', 'direct'], true);
    const verify = isMap(direct) ? direct.get('verify', true) : undefined;
    const scheme = isMap(verify) ? keysOf(verify)[0] : undefined;
    if (scheme !== undefined && isMap(direct))
      keep(found, scheme, { path, text: `direct:\n${indented(text, direct, '  ')}` });
  }
  return found;
}

/** A table of the example flows: each file, its activity, and the first sentence of its header comment. */
export function renderExampleIndex(toRoot: string, files: readonly ExampleFile[] = exampleFlowFiles()): string {
  return table(
    ['example', 'activity', 'what it shows'],
    files.map(({ path, text }) => {
      const activity = parseDocument(text).getIn(['trigger', 'webhook', 'activity']);
      return [
        `[${path.replace(/^examples\/flows\//, '')}](${toRoot}${path})`,
        code(String(activity)),
        headerComment(text),
      ];
    }),
  );
}

/** The comment lines a file starts with, after the editor's modeline, up to the first full stop. */
function headerComment(text: string): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('#')) break;
    if (!line.includes('yaml-language-server:')) lines.push(line.replace(/^#\s?/, ''));
  }
  const comment = lines.join(' ');
  const end = comment.search(/\.(\s|$)/);
  return end < 0 ? comment : comment.slice(0, end + 1);
}

function keep(found: Map<string, Snippet>, key: string, snippet: Snippet): void {
  const before = found.get(key);
  if (!before || snippet.text.length < before.text.length) found.set(key, snippet);
}

function keysOf(map: YAMLMap): string[] {
  return map.items.map((pair) => String((pair.key as { value?: unknown } | null)?.value ?? pair.key));
}

/** A sequence item's source as `- …` at column 0. */
function listItem(source: string, node: Node): string {
  const [first, ...rest] = lines(source, node);
  return [`- ${first}`, ...rest.map((line) => (line === '' ? '' : `  ${line}`))].join('\n');
}

/** A node's source re-indented by `indent`. */
function indented(source: string, node: Node, indent: string): string {
  return lines(source, node)
    .map((line) => (line === '' ? '' : `${indent}${line}`))
    .join('\n');
}

/** A node's source lines, the first from where the node starts and the rest dedented by that column. */
function lines(source: string, node: Node): string[] {
  const [start, end] = node.range!;
  const column = start - (source.lastIndexOf('\n', start - 1) + 1);
  const [first, ...rest] = source.slice(start, end).trimEnd().split('\n');
  return [first!, ...rest.map((line) => line.slice(Math.min(column, line.length - line.trimStart().length)))];
}
